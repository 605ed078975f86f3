//! What the oracle benches read off the machine.

/// CPU seconds the whole machine has spent (every process, `/proc/stat`): the oracle's sandboxed
/// processes are not the bench's children, so `getrusage` would not see them. Measure with the
/// machine otherwise quiet.
pub fn machine_cpu() -> f64 {
    let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let Some(line) = text.lines().next() else {
        return 0.0;
    };
    // user nice system idle iowait irq softirq steal: everything but idle and iowait.
    let v: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let busy: f64 = v
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4 && *i < 8)
        .map(|(_, x)| x)
        .sum();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    busy / hz
}
