//! `EnvSpec`: an environment and its parameters, the serialisable half of a run spec beside the
//! agent's. Rewards, the orchestrator's odds and measured verdicts travel with a run like
//! hyperparameters do: in share links (`e.` fields), the form, exports and the CLI.

use serde::{Deserialize, Deserializer, Serialize};

use super::episode::Baseline;
use super::executive::{self, ExecutiveEnv, ExecutiveParams};
use super::gym::{GymEnvironment, GymParams};
use super::live_rules::AnyLiveRules;
use super::orchestrator::{self, OrchestratorEnv, OrchestratorParams};
use super::planner::{PlannerEnv, PlannerRewards};
use super::{AnyEnv, EnvId};
use crate::env::tasks::{MeasuredVerdict, planner_task};
use crate::params::Parameters;

/// An environment and its parameters.
///
/// It reads what older pages and exports wrote, a bare environment name (`"executive"`), as that
/// environment with the seed's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum EnvSpec {
    Executive(ExecutiveParams),
    Planner(PlannerRewards),
    Orchestrator(OrchestratorParams),
    Gym(GymParams),
}

impl EnvId {
    /// This environment with the seed's parameters.
    pub fn default_spec(self) -> EnvSpec {
        match self {
            EnvId::Executive => EnvSpec::Executive(ExecutiveParams::default()),
            EnvId::Planner => EnvSpec::Planner(PlannerRewards::default()),
            EnvId::Orchestrator => EnvSpec::Orchestrator(OrchestratorParams::default()),
            EnvId::Gym(id) => EnvSpec::Gym(GymParams::new(id)),
        }
    }

    /// A fresh environment with the seed's parameters.
    pub fn make(self) -> AnyEnv {
        self.default_spec().make().expect("the seed's parameters are valid")
    }
}

impl EnvSpec {
    pub fn id(&self) -> EnvId {
        match self {
            EnvSpec::Executive(_) => EnvId::Executive,
            EnvSpec::Planner(_) => EnvId::Planner,
            EnvSpec::Orchestrator(_) => EnvId::Orchestrator,
            EnvSpec::Gym(p) => EnvId::Gym(p.env),
        }
    }

    /// A fresh environment with these parameters.
    pub fn make(&self) -> Result<AnyEnv, String> {
        self.validate()?;
        Ok(match self {
            EnvSpec::Executive(p) => AnyEnv::Executive(ExecutiveEnv::new(p.tasks()?, None, p.rewards)),
            EnvSpec::Planner(rewards) => AnyEnv::Planner(PlannerEnv::new(planner_task(), *rewards)),
            EnvSpec::Orchestrator(params) => AnyEnv::Orchestrator(OrchestratorEnv::new(*params)),
            EnvSpec::Gym(params) => AnyEnv::Gym(GymEnvironment::new(params.clone())),
        })
    }

    /// The rules of this environment's live mode with these parameters, if it has one.
    pub fn live_rules(&self) -> Option<AnyLiveRules> {
        match self {
            EnvSpec::Executive(p) => Some(AnyLiveRules::Executive(executive::live::ExecutiveLive::new(p.rewards))),
            EnvSpec::Planner(_) | EnvSpec::Gym(_) => None,
            EnvSpec::Orchestrator(p) => Some(AnyLiveRules::Orchestrator(orchestrator::live::OrchestratorLive::new(*p))),
        }
    }

    /// The fixed policy its seed compares the learned one with, if it names one: seed 003's
    /// pipeline for the orchestrator, whose calls after the end are charged as redundant ones.
    pub fn baseline(&self) -> Option<Baseline> {
        match self {
            EnvSpec::Orchestrator(p) => Some(Baseline {
                actions: &orchestrator::PIPELINE,
                reward_after_end: p.reward_step + p.reward_redundant,
            }),
            EnvSpec::Executive(_) | EnvSpec::Planner(_) | EnvSpec::Gym(_) => None,
        }
    }

    /// The exact value of each action in the start state, discounting by `gamma`, where the
    /// environment's odds are known in full (the orchestrator's; see its `value_iteration`).
    pub fn start_values(&self, gamma: f64) -> Option<Vec<f64>> {
        match self {
            EnvSpec::Orchestrator(p) => Some(orchestrator::value_iteration::start_values(p, gamma).to_vec()),
            EnvSpec::Executive(_) | EnvSpec::Planner(_) | EnvSpec::Gym(_) => None,
        }
    }

    /// The simulator's probabilities that live episodes can calibrate (seed 003 §6.2), by field
    /// name, with their values: the orchestrator's five; the others draw from no odds.
    pub fn odds(&self) -> Vec<(&'static str, f64)> {
        match self {
            EnvSpec::Orchestrator(p) => p.odds().to_vec(),
            EnvSpec::Executive(_) | EnvSpec::Planner(_) | EnvSpec::Gym(_) => Vec::new(),
        }
    }

    /// Verdicts measured in Python, where its test actions use them instead of the recorded ones.
    pub fn measured_verdicts(&self) -> Option<&[MeasuredVerdict]> {
        match self {
            EnvSpec::Executive(p) => p.measured_verdicts.as_deref(),
            EnvSpec::Planner(_) | EnvSpec::Orchestrator(_) | EnvSpec::Gym(_) => None,
        }
    }

    /// Whether its agent trains inside a code world model (seed 004), which a share link cannot
    /// carry: the model is a table over every state, not a setting.
    pub fn trains_inside_a_model(&self) -> bool {
        matches!(self, EnvSpec::Gym(p) if p.model.is_some())
    }

    /// Makes its test actions use `measured` verdicts (`None`: the recorded ones); see
    /// [`EnvId::measures_verdicts`].
    pub fn set_measured_verdicts(&mut self, measured: Option<Vec<MeasuredVerdict>>) -> Result<(), String> {
        match self {
            EnvSpec::Executive(p) => {
                let previous = std::mem::replace(&mut p.measured_verdicts, measured);
                p.tasks().map(|_| ()).inspect_err(|_| p.measured_verdicts = previous)
            }
            EnvSpec::Planner(_) | EnvSpec::Orchestrator(_) | EnvSpec::Gym(_) if measured.is_none() => Ok(()),
            other => Err(format!("the {} environment has no test actions to measure in Python", other.id().name())),
        }
    }
}

impl Default for EnvSpec {
    fn default() -> Self {
        EnvId::default().default_spec()
    }
}

impl Parameters for EnvSpec {
    fn params_schema(&self) -> serde_json::Value {
        let schema = match self {
            EnvSpec::Executive(_) => schemars::schema_for!(ExecutiveParams),
            EnvSpec::Planner(_) => schemars::schema_for!(PlannerRewards),
            EnvSpec::Orchestrator(_) => schemars::schema_for!(OrchestratorParams),
            EnvSpec::Gym(_) => schemars::schema_for!(GymParams),
        };
        schema.to_value()
    }

    fn validate(&self) -> Result<(), String> {
        match self {
            EnvSpec::Executive(p) => p.validate(),
            EnvSpec::Planner(p) => p.validate(),
            EnvSpec::Orchestrator(p) => p.validate(),
            EnvSpec::Gym(p) => p.validate(),
        }
    }
}

/// Reads an [`EnvSpec`], or a bare environment name as older pages and exports wrote it.
pub(crate) fn spec_or_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<EnvSpec, D::Error> {
    use serde::de::Error;
    match serde_json::Value::deserialize(deserializer)? {
        serde_json::Value::String(name) => EnvId::parse(&name).map(EnvId::default_spec).map_err(D::Error::custom),
        value => EnvSpec::deserialize(value).map_err(D::Error::custom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params;

    #[test]
    fn a_bare_name_reads_as_the_seed_parameters() {
        #[derive(Deserialize)]
        struct Holder {
            #[serde(deserialize_with = "spec_or_name")]
            env: EnvSpec,
        }
        let old: Holder = serde_json::from_str(r#"{"env": "orchestrator"}"#).unwrap();
        assert_eq!(old.env, EnvId::Orchestrator.default_spec());
        let new: Holder = serde_json::from_str(r#"{"env": {"kind": "executive", "stop_success": 50}}"#).unwrap();
        let EnvSpec::Executive(p) = new.env else { panic!("an executive spec") };
        assert_eq!((p.rewards.stop_success, p.rewards.generate), (50.0, 1.0));
        let err = serde_json::from_str::<Holder>(r#"{"env": "gridworld"}"#).err().unwrap().to_string();
        assert!(err.contains("unknown environment 'gridworld'"), "{err}");
    }

    #[test]
    fn every_environment_round_trips_through_its_fields() {
        for id in EnvId::ALL {
            let spec = id.default_spec();
            let fields = params::fields(&spec.params_schema());
            let least = if matches!(id, EnvId::Gym(_)) { 1 } else { 10 };
            assert!(fields.len() >= least, "{id:?} has {} fields", fields.len());
            assert!(fields.iter().all(|f| !f.description.is_empty()), "{id:?}: {fields:?}");
            assert!(fields.iter().all(|f| f.path.len() == 1), "flat names: {fields:?}");
            assert_eq!(params::build(&spec, &fields, &params::texts(&spec, &fields)).unwrap(), spec);
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<EnvSpec>(&json).unwrap(), spec);
        }
    }

    #[test]
    fn out_of_range_parameters_name_the_field() {
        let spec = EnvId::Orchestrator.default_spec();
        let err = params::apply(&spec, &["planner_success=1.5".into()]).unwrap_err();
        assert_eq!(err, "planner_success must be between 0 and 1, got 1.5");
        let err = params::apply(&EnvId::Executive.default_spec(), &["max_tests=9".into()]).unwrap_err();
        assert_eq!(err, "max_tests must be between 1 and 4, got 9");
        let err = params::apply(&spec, &["speed=3".into()]).unwrap_err();
        assert!(err.starts_with("'speed' is not a parameter here; valid: planner_success, "), "{err}");
    }

    #[test]
    fn measured_verdicts_must_cover_every_program() {
        let mut spec = EnvId::Executive.default_spec();
        let partial = vec![crate::env::tasks::executive_programs()[0].measured(crate::python::Verdict {
            passed: false,
            number_passed: 0,
            total: 3,
        })];
        let err = spec.set_measured_verdicts(Some(partial)).unwrap_err();
        assert!(err.starts_with("no measured verdict for task"), "{err}");
        assert_eq!(spec, EnvId::Executive.default_spec(), "a refused change leaves the spec as it was");
        let err = EnvId::Planner.default_spec().set_measured_verdicts(Some(vec![])).unwrap_err();
        assert_eq!(err, "the planner environment has no test actions to measure in Python");
    }
}
