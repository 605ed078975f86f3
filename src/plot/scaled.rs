//! PNG figures at 2× (or 3×, 4×) for slides and high-density screens: a drawing backend that
//! gives the figure code its usual size (every figure lays out exactly as at 1×) and draws each
//! primitive on a bitmap `scale` times larger: coordinates, stroke widths, radii and font sizes
//! are multiplied, so lines and text are rasterised sharp at the higher resolution rather than
//! a 1× bitmap being enlarged.

use plotters::prelude::*;
use plotters::style::FontDesc;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// `inner` is `scale` times the size the figure code sees.
pub struct Scaled<DB> {
    pub inner: DB,
    pub scale: u32,
}

/// A style with its stroke width multiplied.
struct Stroke {
    color: BackendColor,
    width: u32,
}

impl BackendStyle for Stroke {
    fn color(&self) -> BackendColor {
        self.color
    }
    fn stroke_width(&self) -> u32 {
        self.width
    }
}

impl<DB: DrawingBackend> Scaled<DB> {
    fn s(&self) -> i32 {
        self.scale as i32
    }
    /// A point (line ends, path vertices, centres): the middle of its scaled pixel block.
    fn pt(&self, (x, y): BackendCoord) -> BackendCoord {
        let s = self.s();
        (x * s + s / 2, y * s + s / 2)
    }
    fn stroke<S: BackendStyle>(&self, style: &S) -> Stroke {
        Stroke {
            color: style.color(),
            width: style.stroke_width() * self.scale,
        }
    }
}

impl<DB: DrawingBackend> DrawingBackend for Scaled<DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        let (w, h) = self.inner.get_size();
        (w / self.scale, h / self.scale)
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        (x, y): BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let s = self.s();
        self.inner
            .draw_rect((x * s, y * s), (x * s + s - 1, y * s + s - 1), &color, true)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let (a, b, st) = (self.pt(from), self.pt(to), self.stroke(style));
        self.inner.draw_path([a, b], &st)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (x0, y0): BackendCoord,
        (x1, y1): BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let s = self.s();
        if fill {
            return self.inner.draw_rect(
                (x0 * s, y0 * s),
                (x1 * s + s - 1, y1 * s + s - 1),
                style,
                true,
            );
        }
        // An outline: four filled bands of the scaled stroke width.
        let w = (style.stroke_width().max(1) * self.scale) as i32;
        let (l, t, r, b) = (x0 * s, y0 * s, x1 * s + s - 1, y1 * s + s - 1);
        let c = style.color();
        self.inner.draw_rect((l, t), (r, t + w - 1), &c, true)?;
        self.inner.draw_rect((l, b - w + 1), (r, b), &c, true)?;
        self.inner.draw_rect((l, t), (l + w - 1, b), &c, true)?;
        self.inner.draw_rect((r - w + 1, t), (r, b), &c, true)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let p: Vec<BackendCoord> = path.into_iter().map(|c| self.pt(c)).collect();
        let st = self.stroke(style);
        self.inner.draw_path(p, &st)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let (c, st) = (self.pt(center), self.stroke(style));
        self.inner.draw_circle(c, radius * self.scale, &st, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let v: Vec<BackendCoord> = vert.into_iter().map(|c| self.pt(c)).collect();
        self.inner.fill_polygon(v, style)
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        (x, y): BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        // The same font, anchor and rotation at `scale` times the size.
        let font = FontDesc::new(
            style.family(),
            style.size() * f64::from(self.scale),
            style.style(),
        )
        .transform(style.transform());
        let scaled = TextStyle {
            font,
            color: style.color(),
            pos: style.anchor(),
        };
        let s = self.s();
        self.inner.draw_text(text, &scaled, (x * s, y * s))
    }
    // `estimate_text_size` keeps the default: the style's own (1×) layout, what the figure code
    // lays out with.
}
