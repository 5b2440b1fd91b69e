//! Links to a training of a language model by StepCoder's PPO (the StepCoder pane's "Train the
//! model"), e.g. `v=1&model-ppo=small&arm=vanilla&updates=3&measure=1&seed=1&tasks=2,1&p.rollouts=4&r.fp=…`.
//! A link carries what was trained and the sender's fingerprint, never the weights: `model-ppo` is
//! `small` for the small code model that the page serves, else the name of the sender's kept model
//! (which the recipient must keep under that name). The settings that differ from the defaults are
//! `p.<field>`; `backend=wgpu` says it trained on WebGPU (absent: the CPU). Training the same spec
//! in the same build on the same backend gives the same records, so the recipient's page says
//! whether its training came out as the sender's ([`fingerprint`]).
//!
//! Decoding never fails: a bad field is named and its default stands in.

use std::hash::Hasher;

use crate::device::Backend;
use crate::params;
use crate::stepcoder::coder_tasks::first_of_each_split;
use crate::stepcoder::learner_params::Arm;
use crate::stepcoder::model_ppo::{ModelPpoSpec, PassAt1Point, UpdateRecord};
use crate::stepcoder::model_ppo_params::ModelPpoParams;

use super::{LINK_VERSION, Link, Pane, is_link_with, link_pairs, read, read_params, whole};

/// `model-ppo`'s value for the small code model.
pub const SMALL_MODEL_NAME: &str = "small";
/// The tasks a link trains on when it names none: as the page's form starts.
pub const DEFAULT_TASKS: (usize, usize) = (8, 4);

#[derive(Clone, Debug, PartialEq)]
pub struct TrainingLink {
    /// [`SMALL_MODEL_NAME`], or the file name of a model kept in the sender's browser.
    pub model: String,
    pub spec: ModelPpoSpec,
    /// The first tasks of each split it trains and measures on (training, unseen).
    pub tasks: (usize, usize),
    /// The sender's [`fingerprint`], once its training ended.
    pub fingerprint: Option<String>,
}

/// The fingerprint of a training's records (their JSON, whose numbers serde writes the same on
/// every platform): equal records, equal fingerprints. The page's build trains the same records in
/// every browser; natively they agree to the printed digits but not in every bit of their floats,
/// so a native training's fingerprint is its own.
pub fn fingerprint(history: &[UpdateRecord], measurements: &[PassAt1Point]) -> String {
    let mut digest = fnv::FnvHasher::default();
    let records = serde_json::to_string(&(history, measurements)).expect("training records serialise");
    digest.write(records.as_bytes());
    format!("{:016x}", digest.finish())
}

impl TrainingLink {
    const FIELDS: [&str; 9] = ["v", "model-ppo", "arm", "updates", "measure", "seed", "tasks", "backend", "r.fp"];

    /// The fragment (without `#`).
    pub fn encode(&self) -> String {
        let spec = &self.spec;
        let mut out = form_urlencoded::Serializer::new(String::new());
        out.append_pair("v", &LINK_VERSION.to_string())
            .append_pair("model-ppo", &self.model)
            .append_pair("arm", spec.arm.name())
            .append_pair("updates", &spec.updates.to_string())
            .append_pair("measure", &spec.measure_every.to_string())
            .append_pair("seed", &spec.seed.to_string())
            .append_pair("tasks", &format!("{},{}", self.tasks.0, self.tasks.1));
        if spec.backend != Backend::default() {
            out.append_pair("backend", spec.backend.name());
        }
        for (field, text) in params::changed(&spec.params, &ModelPpoParams::default()) {
            out.append_pair(&format!("p.{}", field.name()), &text);
        }
        if let Some(fingerprint) = &self.fingerprint {
            out.append_pair("r.fp", fingerprint);
        }
        out.finish()
    }

    /// Reads a fragment (with or without `#`); returns a valid link and what had to be replaced.
    pub fn decode(fragment: &str) -> (TrainingLink, Vec<String>) {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let defaults = ModelPpoSpec::default();
        let mut problems = Vec::new();
        let Some(pairs) = link_pairs(fragment, &Self::FIELDS, "p.", "model training", &mut problems) else {
            let link = TrainingLink {
                model: SMALL_MODEL_NAME.into(),
                spec: defaults,
                tasks: DEFAULT_TASKS,
                fingerprint: None,
            };
            return (link, problems);
        };
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        let model = match get("model-ppo").map(str::trim) {
            Some(name) if !name.is_empty() => name.to_owned(),
            _ => SMALL_MODEL_NAME.to_owned(),
        };
        let positive = |v: &str| -> Result<usize, String> {
            let n: usize = whole(v)?;
            if n == 0 { Err("must be 1 or more".into()) } else { Ok(n) }
        };
        let spec = ModelPpoSpec {
            arm: read(&mut problems, "arm", get("arm"), defaults.arm, Arm::parse),
            updates: read(&mut problems, "updates", get("updates"), defaults.updates, positive),
            measure_every: read(&mut problems, "measure", get("measure"), defaults.measure_every, positive),
            seed: read(&mut problems, "seed", get("seed"), defaults.seed, whole),
            params: read_params(&mut problems, &pairs, ("p.", "the training", "setting"), &ModelPpoParams::default()),
            backend: read(&mut problems, "backend", get("backend"), defaults.backend, Backend::parse),
        };
        let tasks = read(&mut problems, "tasks", get("tasks"), DEFAULT_TASKS, |v| {
            let (n, m) = v.split_once(',').ok_or_else(|| format!("'{v}' is not N,M"))?;
            let tasks = (whole(n.trim())?, whole(m.trim())?);
            first_of_each_split(tasks.0, tasks.1)?;
            Ok(tasks)
        });
        let fingerprint = get("r.fp").map(str::to_owned);
        (TrainingLink { model, spec, tasks, fingerprint }, problems)
    }
}

impl Link for TrainingLink {
    const KIND: &'static str = "model training";
    const PANE: Pane = Pane::Stepcoder;

    /// A link has values (`model-ppo=…`).
    fn is_fragment(fragment: &str) -> bool {
        is_link_with(fragment, "model-ppo")
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

    #[test]
    fn a_training_link_carries_the_spec_and_the_fingerprint_and_round_trips() {
        let mut spec = ModelPpoSpec { arm: Arm::Vanilla, updates: 3, measure_every: 1, ..ModelPpoSpec::default() };
        spec.params.rollouts = 4;
        let link = TrainingLink { model: "small".into(), spec, tasks: (2, 1), fingerprint: Some("00ff".into()) };
        let fragment = link.encode();
        assert_eq!(
            fragment,
            "v=1&model-ppo=small&arm=vanilla&updates=3&measure=1&seed=1&tasks=2%2C1&p.rollouts=4&r.fp=00ff"
        );
        assert!(TrainingLink::is_fragment(&format!("#{fragment}")));
        assert!(!TrainingLink::is_fragment("#stepcoder"));
        assert_eq!(TrainingLink::decode(&fragment), (link, vec![]));
        // A kept model's name is carried as it is written.
        let kept = TrainingLink { model: "my model.gguf".into(), ..TrainingLink::decode(&fragment).0 };
        assert_eq!(TrainingLink::decode(&kept.encode()).0.model, "my model.gguf");
        // The CPU goes unsaid; WebGPU is said, and read back.
        let on_gpu = TrainingLink { spec: ModelPpoSpec { backend: Backend::Wgpu, ..kept.spec.clone() }, ..kept };
        assert!(on_gpu.encode().contains("&backend=wgpu&"), "{}", on_gpu.encode());
        assert_eq!(TrainingLink::decode(&on_gpu.encode()), (on_gpu, vec![]));
    }

    #[test]
    fn bad_fields_are_named_and_defaults_stand_in() {
        let (link, problems) = TrainingLink::decode(
            "v=1&model-ppo=small&arm=ppo&updates=0&tasks=40,1&backend=cuda&p.rollouts=x&colour=red",
        );
        assert_eq!((link.spec, link.tasks), (ModelPpoSpec::default(), DEFAULT_TASKS));
        let expected = [
            "'colour' is not a field of a model training link",
            "arm: no arm `ppo`",
            "updates: must be 1 or more",
            "settings: rollouts: 'x' is not a whole number",
            "backend: unknown backend 'cuda'",
            "tasks: training tasks: between 1 and 32, got 40",
        ];
        crate::share::assert_problems_start_with(&problems, &expected);
    }

    #[test]
    fn the_fingerprint_follows_the_records() {
        let point = PassAt1Point { after_updates: 0, training: 0.5, unseen: 0.25, passes: vec![1, 2] };
        let other = PassAt1Point { training: 0.75, ..point.clone() };
        let same = PassAt1Point { passes: vec![1, 2], ..point.clone() };
        assert_eq!(fingerprint(&[], std::slice::from_ref(&point)), fingerprint(&[], &[same]));
        assert_ne!(fingerprint(&[], &[point]), fingerprint(&[], &[other]));
    }
}
