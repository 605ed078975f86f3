//! Task-cluster bootstrap for the admission/return audit (`docs/statistics.md`, "Task-cluster
//! bootstrap"; source: the audit paper).
//!
//! Candidates of one task are correlated, so the unit of resampling is the task: a draw picks
//! tasks with replacement and takes all of each picked task's candidates. A conditional fraction
//! X / N (e.g. admitted nonpasses over admitted) recomputes its denominator in every draw; draws
//! whose denominator is 0 are undefined, counted, and left out of the percentiles, and the
//! interval is held (not shown) when they are more than 5% of draws or the original denominator
//! is 0.

use serde::Serialize;

use super::percentile::percentile_type7;
use super::resample::Resamples;

/// Draws of the audit's intervals (the audit paper uses the same number).
pub const CLUSTER_DRAWS: usize = 20_000;

/// Largest share of undefined draws that still yields an interval.
const MAX_UNDEFINED_SHARE: f64 = 0.05;

/// A ratio estimate with its task-cluster bootstrap interval (or the reason there is none).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClusterInterval {
    /// Σ num / Σ den on the original tasks; `None` when Σ den = 0.
    pub estimate: Option<f64>,
    /// Type-7 0.025 / 0.975 percentiles of the defined draws; `None` when held.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub draws: usize,
    /// Draws whose resampled denominator was 0 (omitted from the percentiles).
    pub undefined_draws: usize,
    /// No interval is shown: original denominator 0, more than 5% undefined draws, or no draws.
    pub held: bool,
    pub seed: u64,
}

/// Conditional fraction Σ num / Σ den with a task-cluster bootstrap interval over `draws`
/// resamples ([`CLUSTER_DRAWS`] in the audit). `per_task_num[t]` and `per_task_den[t]` are task
/// t's numerator and denominator counts (e.g. admitted nonpasses, admitted candidates).
///
/// # Panics
/// If the two slices differ in length.
pub fn cluster_bootstrap_fraction(
    per_task_num: &[f64],
    per_task_den: &[f64],
    draws: usize,
    seed: u64,
) -> ClusterInterval {
    let plan = Resamples::new(per_task_num.len(), draws, seed);
    cluster_bootstrap_with_plan(per_task_num, per_task_den, &plan)
}

/// Unconditional fraction: every task has denominator 1, so the estimate is the mean of the
/// per-task values and no draw is undefined (unless there are no tasks at all).
pub fn cluster_bootstrap_unconditional(
    per_task_value: &[f64],
    draws: usize,
    seed: u64,
) -> ClusterInterval {
    let ones = vec![1.0; per_task_value.len()];
    cluster_bootstrap_fraction(per_task_value, &ones, draws, seed)
}

/// [`cluster_bootstrap_fraction`] on an explicit plan (tasks = the plan's items, draws = its
/// replicates), so an independent checker can be given the very same draws.
pub fn cluster_bootstrap_with_plan(
    per_task_num: &[f64],
    per_task_den: &[f64],
    plan: &Resamples,
) -> ClusterInterval {
    assert_eq!(
        per_task_num.len(),
        per_task_den.len(),
        "numerator and denominator need one value per task"
    );
    let total_den: f64 = per_task_den.iter().sum();
    let estimate = (total_den != 0.0).then(|| per_task_num.iter().sum::<f64>() / total_den);
    let nums = plan.replicate_sums(per_task_num);
    let dens = plan.replicate_sums(per_task_den);
    let mut ratios: Vec<f64> = nums
        .iter()
        .zip(&dens)
        .filter(|(_, &d)| d != 0.0)
        .map(|(&x, &d)| x / d)
        .collect();
    let draws = plan.b();
    let undefined_draws = draws - ratios.len();
    let held = estimate.is_none()
        || draws == 0
        || undefined_draws as f64 > MAX_UNDEFINED_SHARE * draws as f64;
    let (low, high) = if held {
        (None, None)
    } else {
        ratios.sort_unstable_by(f64::total_cmp);
        (
            Some(percentile_type7(&ratios, 0.025)),
            Some(percentile_type7(&ratios, 0.975)),
        )
    };
    ClusterInterval {
        estimate,
        low,
        high,
        draws,
        undefined_draws,
        held,
        seed: plan.seed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_tasks_held_for_undefined_draws() {
        // Only task 3 has a denominator. A draw misses it with probability (2/3)³ = 8/27 ≈ 29.6%,
        // far above 5%, so the interval is held although the estimate (1/1) exists.
        let ci = cluster_bootstrap_fraction(&[0.0, 0.0, 1.0], &[0.0, 0.0, 1.0], 2_000, 42);
        assert_eq!(ci.estimate, Some(1.0));
        assert!(ci.held);
        assert_eq!((ci.low, ci.high), (None, None));
        let share = ci.undefined_draws as f64 / 2_000.0;
        assert!((share - 8.0 / 27.0).abs() < 0.04, "{share}");
    }

    #[test]
    fn zero_original_denominator_is_held() {
        let ci = cluster_bootstrap_fraction(&[0.0, 0.0], &[0.0, 0.0], 100, 1);
        assert_eq!(ci.estimate, None);
        assert!(ci.held);
        assert_eq!(ci.undefined_draws, 100);
        let ci = cluster_bootstrap_unconditional(&[], 100, 1);
        assert!(ci.held && ci.estimate.is_none());
    }

    #[test]
    fn three_tasks_hand_interval() {
        // Per-draw ratio ∈ {0, 1/3, 2/3, 1}; P(0) = 1/27 ≈ 3.7% > 2.5% and P(1) = 8/27 > 2.5%,
        // so with 20,000 draws the percentile interval is [0, 1] around the estimate 2/3.
        let ci = cluster_bootstrap_unconditional(&[1.0, 0.0, 1.0], CLUSTER_DRAWS, 7);
        assert!((ci.estimate.unwrap() - 2.0 / 3.0).abs() < 1e-15);
        assert!(!ci.held);
        assert_eq!(ci.undefined_draws, 0);
        assert_eq!((ci.low, ci.high), (Some(0.0), Some(1.0)));
    }

    #[test]
    fn conditional_ratio_recomputes_denominator() {
        // Two tasks: (num, den) = (1, 4) and (3, 4). Draws: {t1,t1} → 2/8, {t1,t2} → 4/8,
        // {t2,t2} → 6/8; never undefined. Interval endpoints must be among these values.
        let ci = cluster_bootstrap_fraction(&[1.0, 3.0], &[4.0, 4.0], 1_000, 3);
        assert_eq!(ci.estimate, Some(0.5));
        assert_eq!((ci.low, ci.high), (Some(0.25), Some(0.75)));
    }
}
