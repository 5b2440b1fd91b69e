//! StepCoder ablation links: the line-bank learner's ablation (seed 002) in a URL fragment, e.g.
//! `v=1&stepcoder=learn&seeds=10&p.budget=512&r.fp=64a64325430366b3`. The arms and tasks ride along
//! when they are not all of them; the learner's settings that differ from the defaults are
//! `p.<field>`, its switches `update`, `fgo`, `kinds` and `rho`. The sender's fingerprint (`r.fp`)
//! lets the recipient's page say whether its run came out the same: every program runs, so the
//! ablation replays exactly. A teacher's `focus`, `hide` and `lock` name the form's arms, seeds and
//! executions ([`super::teaching`]).
//!
//! Decoding never fails, as with run links: a bad field is named and its default stands in.

use crate::params;
use crate::stepcoder::ablation::{AblationSpec, MAX_SEEDS};
use crate::stepcoder::learner_params::{Arm, LearnerParams};

use super::{
    AblationControl, LINK_VERSION, Link, Pane, Teaching, is_link_with, link_pairs, name_of, of_name, read, read_params,
    whole,
};

#[derive(Clone, Debug, PartialEq)]
pub struct AblationLink {
    pub spec: AblationSpec,
    /// The sender's [`crate::stepcoder::ablation::Ablation::fingerprint`], once it finished.
    pub fingerprint: Option<String>,
    pub teaching: Teaching<AblationControl>,
}

impl AblationLink {
    const FIELDS: [&str; 10] = ["v", "stepcoder", "seeds", "arms", "tasks", "update", "fgo", "kinds", "rho", "r.fp"];

    /// The fragment (without `#`).
    pub fn encode(&self) -> String {
        let (spec, defaults) = (&self.spec, AblationSpec::default());
        let mut out = form_urlencoded::Serializer::new(String::new());
        out.append_pair("v", &LINK_VERSION.to_string())
            .append_pair("stepcoder", "learn")
            .append_pair("seeds", &spec.seeds.to_string());
        if spec.arms != defaults.arms {
            out.append_pair("arms", &spec.arms.iter().map(|a| a.name()).collect::<Vec<_>>().join(","));
        }
        if !spec.tasks.is_empty() {
            out.append_pair("tasks", &spec.tasks.join(","));
        }
        for (field, text) in params::changed(&spec.params, &defaults.params) {
            out.append_pair(&format!("p.{}", field.name()), &text);
        }
        let (ours, theirs) = (&spec.params, &defaults.params);
        let switches = [
            ("update", name_of(&ours.update), name_of(&theirs.update)),
            ("fgo", name_of(&ours.compile_errors), name_of(&theirs.compile_errors)),
            ("kinds", name_of(&ours.curriculum.kinds), name_of(&theirs.curriculum.kinds)),
            ("rho", name_of(&ours.curriculum.update), name_of(&theirs.curriculum.update)),
        ];
        for (key, value, default) in switches {
            if value != default {
                out.append_pair(key, &value);
            }
        }
        self.teaching.append(&mut out);
        if let Some(fingerprint) = &self.fingerprint {
            out.append_pair("r.fp", fingerprint);
        }
        out.finish()
    }

    /// Reads a fragment (with or without `#`); returns a valid link and what had to be replaced.
    pub fn decode(fragment: &str) -> (AblationLink, Vec<String>) {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let defaults = AblationSpec::default();
        let mut problems = Vec::new();
        let fields = [&Self::FIELDS[..], &Teaching::<AblationControl>::FIELDS].concat();
        let Some(pairs) = link_pairs(fragment, &fields, "p.", "StepCoder", &mut problems) else {
            return (AblationLink { spec: defaults, fingerprint: None, teaching: Teaching::default() }, problems);
        };
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let seeds = read(&mut problems, "seeds", get("seeds"), defaults.seeds, |v| {
            let seeds: u32 = whole(v)?;
            if !(1..=MAX_SEEDS).contains(&seeds) {
                return Err(format!("{seeds} is outside 1..={MAX_SEEDS}"));
            }
            Ok(seeds)
        });
        let arms = read(&mut problems, "arms", get("arms"), defaults.arms.clone(), |v| {
            v.split(',').map(|a| Arm::parse(a.trim())).collect()
        });
        let tasks = get("tasks").map_or_else(Vec::new, |t| t.split(',').map(|id| id.trim().to_owned()).collect());
        let mut params =
            read_params(&mut problems, &pairs, ("p.", "the learner", "setting"), &LearnerParams::default());
        params.update = read(&mut problems, "update", get("update"), params.update, of_name);
        params.compile_errors = read(&mut problems, "fgo", get("fgo"), params.compile_errors, of_name);
        params.curriculum.kinds = read(&mut problems, "kinds", get("kinds"), params.curriculum.kinds, of_name);
        params.curriculum.update = read(&mut problems, "rho", get("rho"), params.curriculum.update, of_name);
        let fingerprint = get("r.fp").map(str::to_owned);
        let teaching = Teaching::read(&mut problems, get);
        (AblationLink { spec: AblationSpec { arms, seeds, tasks, params }, fingerprint, teaching }, problems)
    }
}

impl Link for AblationLink {
    const KIND: &'static str = "StepCoder";
    const PANE: Pane = Pane::Stepcoder;

    /// Whether a fragment is an ablation link.
    /// A link has values (`stepcoder=…`); the pane's own anchor (`#stepcoder`, the nav's) is not one.
    fn is_fragment(fragment: &str) -> bool {
        is_link_with(fragment, "stepcoder")
    }

    fn read(fragment: &str) -> (Self, Vec<String>) {
        Self::decode(fragment)
    }

    fn fragment(&self) -> String {
        self.encode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stepcoder::fgo::CompileErrorRule;

    #[test]
    fn an_ablation_link_is_short_and_round_trips() {
        let mut spec = AblationSpec { seeds: 2, ..AblationSpec::default() };
        spec.params.budget = 128;
        let link = AblationLink { spec, fingerprint: Some("64a64325430366b3".into()), teaching: Teaching::default() };
        let fragment = link.encode();
        assert_eq!(fragment, "v=1&stepcoder=learn&seeds=2&p.budget=128&r.fp=64a64325430366b3");
        assert!(AblationLink::is_fragment(&format!("#{fragment}")));
        assert_eq!(AblationLink::decode(&fragment), (link, vec![]));

        let mut spec = AblationSpec {
            arms: vec![Arm::Vanilla, Arm::Cccs],
            tasks: vec!["clamp_sum".into()],
            ..AblationSpec::default()
        };
        spec.params.compile_errors = CompileErrorRule::KeepAll;
        let link = AblationLink { spec, fingerprint: None, teaching: Teaching::default() };
        let fragment = link.encode();
        assert_eq!(fragment, "v=1&stepcoder=learn&seeds=10&arms=vanilla%2Ccccs&tasks=clamp_sum&fgo=keep_all");
        assert_eq!(AblationLink::decode(&fragment), (link, vec![]));
    }

    #[test]
    fn bad_fields_are_named_and_defaults_stand_in() {
        let (link, problems) =
            AblationLink::decode("v=1&stepcoder=learn&seeds=0&arms=ppo&p.budget=x&fgo=some&colour=red");
        assert_eq!(link.spec, AblationSpec::default());
        let expected = [
            "'colour' is not a field of a StepCoder link",
            "seeds: 0 is outside 1..=100",
            "arms: no arm `ppo`",
            "settings: budget: 'x' is not a whole number",
            "fgo: unknown variant `some`",
        ];
        crate::share::assert_problems_start_with(&problems, &expected);
    }
}
