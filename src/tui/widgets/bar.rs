//! Horizontal bars drawn with eighth-block characters (legible in any font and in 16 colours).

/// A bar of `frac` ∈ [0, 1] of `width` cells, padded with spaces to exactly `width` cells.
pub fn bar(frac: f64, width: usize) -> String {
    const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let frac = if frac.is_finite() {
        frac.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let eighths = (frac * width as f64 * 8.0).round() as usize;
    let full = eighths / 8;
    let mut s = "█".repeat(full.min(width));
    if full < width {
        let rem = eighths % 8;
        if rem > 0 {
            s.push(EIGHTHS[rem]);
        }
        let used = full + usize::from(rem > 0);
        s.push_str(&" ".repeat(width - used));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::bar;

    #[test]
    fn bar_is_exactly_its_width_in_eighth_blocks() {
        assert_eq!(bar(0.0, 4), "    ");
        assert_eq!(bar(1.0, 4), "████");
        assert_eq!(bar(0.5, 4), "██  ");
        assert_eq!(bar(0.0625, 2), "▏ ");
        assert_eq!(bar(f64::NAN, 3), "   ");
        assert_eq!(bar(2.0, 3).chars().count(), 3);
    }
}
