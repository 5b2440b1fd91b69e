//! Seed 003 §6.2, calibrating the simulator from real episodes: "Initial simulation parameters
//! (based on guesses) led to only 80% real-world success. After tuning simulation probabilities to
//! match observed LLM behavior, the learned policy achieved 100% success on real tasks." The seed
//! does not say how it tuned them. Here each probability gets a Beta posterior from the trials
//! that live episodes recorded ([`Trial`]): under a uniform Beta(1, 1) prior, k events in n trials
//! give Beta(1 + k, 1 + n − k). Its mean, rounded to three decimals as the page shows it, becomes
//! the calibrated value; its 2.5% and 97.5% quantiles are the 95% credible interval shown beside
//! it. A probability without a trial keeps today's value.

use serde::Serialize;
use statrs::distribution::{Beta, ContinuousCDF};

use crate::env::EnvSpec;
use crate::env::live::Trial;
use crate::params;

/// The offline stand-in for §6.2's real LLM (`rlcg live --recalibrate`), ours: the seed's own
/// LLM cannot be met offline. It differs from the simulator's guesses (seed 003's defaults) where a
/// policy's opening matters: without a plan it writes correct code at a coin flip's odds (the
/// simulator guesses 0.60), with a plan at 0.95 (0.85), and its debugger fixes 0.60 of the errors
/// (0.70). Its programs are judged by the real tests, which catch every bug they can see, where
/// the simulator guesses that they catch 0.40.
pub const REAL_LLM_ODDS: [&str; 4] = [
    "planner_success=0.95",
    "coder_success_with_plan=0.95",
    "coder_success_without_plan=0.5",
    "debugger_fixes_error=0.6",
];

/// Seed 003 §6.2's real-world success of the learned policy: "80%" before the odds were tuned to
/// the real LLM, "100%" after.
pub const SEED_SUCCESS_BEFORE_AND_AFTER: (f64, f64) = (0.8, 1.0);

/// What the trials say about one probability.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OddsEstimate {
    /// The probability's field in the environment's spec.
    pub odds: &'static str,
    /// Its value today.
    pub current: f64,
    /// Trials in which the event happened.
    pub happened: u32,
    pub trials: u32,
    /// The posterior mean, rounded to three decimals: the calibrated value (`None` without trials).
    pub mean: Option<f64>,
    /// The 95% equal-tailed credible interval (`None` without trials).
    pub interval: Option<(f64, f64)>,
}

/// Every probability of an environment, estimated from live trials.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    pub estimates: Vec<OddsEstimate>,
}

impl Calibration {
    /// Counts `trials` against `spec`'s probabilities; a trial of a probability the environment
    /// does not have is an error that names it.
    pub fn new<'a>(spec: &EnvSpec, trials: impl IntoIterator<Item = &'a Trial>) -> Result<Self, String> {
        let odds = spec.odds();
        if odds.is_empty() {
            return Err(format!("{} draws from no probabilities that live episodes could calibrate", spec.id().name()));
        }
        let mut estimates: Vec<OddsEstimate> = odds
            .into_iter()
            .map(|(odds, current)| OddsEstimate { odds, current, happened: 0, trials: 0, mean: None, interval: None })
            .collect();
        for trial in trials {
            let estimate = estimates.iter_mut().find(|e| e.odds == trial.odds).ok_or_else(|| {
                format!("a live episode observed '{}', which {} does not have", trial.odds, spec.id().name())
            })?;
            estimate.trials += 1;
            estimate.happened += u32::from(trial.happened);
        }
        for estimate in estimates.iter_mut().filter(|e| e.trials > 0) {
            let (a, b) = (f64::from(1 + estimate.happened), f64::from(1 + estimate.trials - estimate.happened));
            let posterior = Beta::new(a, b).expect("both shapes are at least 1");
            estimate.mean = Some((a / (a + b) * 1000.0).round() / 1000.0);
            estimate.interval = Some((posterior.inverse_cdf(0.025), posterior.inverse_cdf(0.975)));
        }
        Ok(Self { estimates })
    }

    /// Whether any probability was observed.
    pub fn has_trials(&self) -> bool {
        self.estimates.iter().any(|e| e.trials > 0)
    }

    /// The calibrated values as `NAME=VALUE` settings (`rlcg train --env-param`, share links'
    /// `e.NAME`).
    pub fn settings(&self) -> Vec<String> {
        self.estimates.iter().filter_map(|e| e.mean.map(|mean| format!("{}={mean}", e.odds))).collect()
    }

    /// `spec` with every observed probability replaced by its calibrated value.
    pub fn calibrated(&self, spec: &EnvSpec) -> Result<EnvSpec, String> {
        params::apply(spec, &self.settings())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EnvId;
    use crate::env::orchestrator::{CODER_SUCCESS_WITHOUT_PLAN, OrchestratorParams, PLANNER_SUCCESS};

    fn trials(odds: &str, happened: u32, failed: u32) -> Vec<Trial> {
        let trial = |happened| Trial { odds: odds.to_owned(), happened };
        (0..happened).map(|_| trial(true)).chain((0..failed).map(|_| trial(false))).collect()
    }

    #[test]
    fn counts_give_the_beta_posterior_worked_by_hand() {
        let spec = EnvId::Orchestrator.default_spec();
        let mut observed = trials(PLANNER_SUCCESS, 4, 0);
        observed.extend(trials(CODER_SUCCESS_WITHOUT_PLAN, 3, 1));
        let calibration = Calibration::new(&spec, &observed).unwrap();
        let planner = &calibration.estimates[0];
        assert_eq!((planner.odds, planner.current, planner.happened, planner.trials), (PLANNER_SUCCESS, 0.95, 4, 4));
        // Beta(5, 1): mean 5/6; its CDF is x^5, so the quantiles are 0.025^(1/5) and 0.975^(1/5).
        assert_eq!(planner.mean, Some(0.833));
        let (low, high) = planner.interval.unwrap();
        assert!((low - 0.478_176).abs() < 1e-5 && (high - 0.994_949).abs() < 1e-5, "{low} {high}");
        // Beta(4, 2): mean 4/6; its CDF is 5x^4 − 4x^5, which is 0.025 at 0.283_6 and 0.975 at 0.947_3.
        let coder = &calibration.estimates[2];
        assert_eq!((coder.happened, coder.trials, coder.mean), (3, 4, Some(0.667)));
        let cdf = |x: f64| 5.0 * x.powi(4) - 4.0 * x.powi(5);
        let (low, high) = coder.interval.unwrap();
        assert!((cdf(low) - 0.025).abs() < 1e-9 && (cdf(high) - 0.975).abs() < 1e-9, "{low} {high}");
        assert!((low - 0.2836).abs() < 1e-3 && (high - 0.9473).abs() < 1e-3, "{low} {high}");
        // Unobserved probabilities keep today's value.
        assert_eq!(calibration.estimates[1].mean, None);
        assert_eq!(calibration.settings(), ["planner_success=0.833", "coder_success_without_plan=0.667"]);
        let EnvSpec::Orchestrator(calibrated) = calibration.calibrated(&spec).unwrap() else { unreachable!() };
        let expected = OrchestratorParams {
            planner_success: 0.833,
            coder_success_without_plan: 0.667,
            ..OrchestratorParams::default()
        };
        assert_eq!(calibrated, expected);
    }

    #[test]
    fn environments_without_odds_and_foreign_trials_are_named() {
        let err = Calibration::new(&EnvId::Executive.default_spec(), &[]).unwrap_err();
        assert!(err.contains("executive"), "{err}");
        let err = Calibration::new(&EnvId::Orchestrator.default_spec(), &trials("luck", 1, 0)).unwrap_err();
        assert!(err.contains("'luck'") && err.contains("orchestrator"), "{err}");
        let none = Calibration::new(&EnvId::Orchestrator.default_spec(), &[]).unwrap();
        assert!(!none.has_trials() && none.settings().is_empty());
    }
}
