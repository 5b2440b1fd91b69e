//! How the line-bank learner draws a line from its logits: the softmax, sampling, and decoding at a
//! temperature from a nucleus (top-p), as seed 002 §4.2 decodes.

use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;

use crate::rng::RunRng;

/// The probabilities of `logits`.
pub fn softmax(logits: &[f64]) -> Vec<f64> {
    let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = logits.iter().map(|l| (l - top).exp()).collect();
    let total: f64 = weights.iter().sum();
    weights.into_iter().map(|w| w / total).collect()
}

/// An option drawn from the softmax of `logits` (T = 1, no nucleus).
pub fn sample(logits: &[f64], rng: &mut RunRng) -> usize {
    WeightedIndex::new(softmax(logits)).expect("softmax weights are positive and finite").sample(rng)
}

/// The smallest set of most likely options whose probability reaches `top_p` (nucleus sampling;
/// ties keep the bank's order), as weights: the others get 0.
pub fn nucleus(probabilities: &[f64], top_p: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..probabilities.len()).collect();
    order.sort_by(|&a, &b| probabilities[b].total_cmp(&probabilities[a]));
    let mut kept = vec![0.0; probabilities.len()];
    let mut mass = 0.0;
    for option in order {
        if mass >= top_p {
            break;
        }
        kept[option] = probabilities[option];
        mass += probabilities[option];
    }
    kept
}

/// A line decoded at `temperature` from the nucleus of `top_p`.
pub fn decode(logits: &[f64], temperature: f64, top_p: f64, rng: &mut RunRng) -> usize {
    let scaled: Vec<f64> = logits.iter().map(|l| l / temperature).collect();
    WeightedIndex::new(nucleus(&softmax(&scaled), top_p)).expect("the nucleus keeps the likeliest option").sample(rng)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// Logits [1.5, 1, 0, 0] at T = 0.2 weigh e^7.5 = 1808.04, e^5 = 148.41, 1 and 1 (of 1958.45):
    /// 0.92320, 0.07578, 0.00051, 0.00051. The first two hold 0.99898 ≥ 0.95, so the nucleus drops the
    /// others; [1, 0, 0, 0] gives the canonical line 0.98019 alone.
    #[test]
    fn decoding_keeps_the_nucleus_at_the_temperature() {
        let scaled = |logits: &[f64]| softmax(&logits.iter().map(|l| l / 0.2).collect::<Vec<_>>());
        let kept = nucleus(&scaled(&[1.5, 1.0, 0.0, 0.0]), 0.95);
        assert!((kept[0] - 0.923_20).abs() < 1e-5 && (kept[1] - 0.075_78).abs() < 1e-5, "{kept:?}");
        assert_eq!((kept[2], kept[3]), (0.0, 0.0));
        let kept = nucleus(&scaled(&[1.0, 0.0, 0.0, 0.0]), 0.95);
        assert!((kept[0] - 0.980_19).abs() < 1e-5 && kept[1..].iter().all(|&k| k == 0.0), "{kept:?}");
        assert_eq!(nucleus(&[0.25; 4], 1.0), vec![0.25; 4], "top-p 1 keeps every option");
        let mut rng = RunRng::seed_from_u64(1);
        assert!((0..200).all(|_| decode(&[1.0, 0.0, 0.0, 0.0], 0.2, 0.95, &mut rng) == 0));
        let mistakes = (0..2000).filter(|_| decode(&[1.0, 1.5, 0.0, 0.0], 0.2, 0.95, &mut rng) == 1).count();
        assert!((1780..1910).contains(&mistakes), "0.924 of 2000 ≈ 1848: {mistakes}");
    }

    /// T = 1 with top-p 1 keeps every option at its softmax weight, so it draws exactly what
    /// `sample` draws from the same stream: the switch back to the earlier rollouts' rule.
    #[test]
    fn decoding_at_t_1_with_the_whole_nucleus_is_sampling() {
        let logits = [1.5, 1.0, 0.0, -0.5];
        let (mut one, mut other) = (RunRng::seed_from_u64(3), RunRng::seed_from_u64(3));
        for _ in 0..500 {
            assert_eq!(decode(&logits, 1.0, 1.0, &mut one), sample(&logits, &mut other));
        }
    }

    /// §4.2's rollouts: logits [1, 0, 0, 0] at T = 0.8 weigh e^1.25 = 3.4903 and 1, 1, 1 (of
    /// 6.4903): 0.5378 and 0.1541 each; the first three hold 0.8459 < 0.9, so the nucleus keeps all
    /// four. Once the canonical line has learned a logit of 2.5 (e^3.125 = 22.760 of 25.760:
    /// 0.8835, each mutant 0.0388) the nucleus keeps it and one mutant (0.9224): the rare mutants
    /// are no longer drawn.
    #[test]
    fn training_rollouts_are_drawn_at_t_0_8_from_the_nucleus_of_0_9() {
        let tempered = |logits: &[f64]| softmax(&logits.iter().map(|l| l / 0.8).collect::<Vec<_>>());
        let start = tempered(&[1.0, 0.0, 0.0, 0.0]);
        assert!((start[0] - 0.537_77).abs() < 1e-5 && (start[1] - 0.154_08).abs() < 1e-5, "{start:?}");
        assert!(nucleus(&start, 0.9).iter().all(|&k| k > 0.0), "0.8459 < 0.9: all four kept");
        let learned = tempered(&[2.5, 0.0, 0.0, 0.0]);
        assert!((learned[0] - 0.883_5).abs() < 1e-4, "{learned:?}");
        assert_eq!(nucleus(&learned, 0.9).iter().filter(|&&k| k > 0.0).count(), 2);
        let mut rng = RunRng::seed_from_u64(2);
        let rare = (0..1000).filter(|_| decode(&[2.5, 0.0, 0.0, 0.0], 0.8, 0.9, &mut rng) >= 2).count();
        assert_eq!(rare, 0, "outside the nucleus, never drawn");
    }
}
