//! The messages between the page and the training worker: one versioned, typed enum each way,
//! sent as JSON. The version lets either side refuse a message from a stale build with a clear
//! error instead of misreading it.

use serde::{Deserialize, Serialize};

use crate::agents::Checkpoint;
use crate::device::{Backend, GpuAdapter};
pub use crate::effects::LiveState;
use crate::lm::chat_template::Message;
use crate::lm::generation::Sampling;
use crate::pace::Pace;
use crate::policy_view::PolicyView;
use crate::python::{ProgramRequest, ProgramVerdict};
use crate::record_rows::RecordRows;
use crate::run::{Evaluation, Restoration, Resume, RunSpec, RunSummary};
use crate::stepcoder::model_ppo::{ModelPpoSpec, PassAt1Point, UpdateRecord};

pub const PROTOCOL_VERSION: u32 = 11;

/// A message with the protocol version it was written for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    pub version: u32,
    pub message: T,
}

impl<T: Serialize + for<'de> Deserialize<'de>> Envelope<T> {
    pub fn encode(message: T) -> String {
        serde_json::to_string(&Envelope { version: PROTOCOL_VERSION, message }).expect("protocol messages serialise")
    }

    /// Parses a message; the error says what was wrong (version or shape).
    pub fn decode(json: &str) -> Result<T, String> {
        // The version first, on its own: a message is parsed into its type once, not through a
        // `serde_json::Value`, which costs several times more for a large progress message.
        #[derive(Deserialize)]
        struct Version {
            version: Option<u64>,
        }
        let version = serde_json::from_str::<Version>(json).map_err(|e| format!("message is not JSON: {e}"))?;
        match version.version {
            Some(v) if v == u64::from(PROTOCOL_VERSION) => {}
            Some(v) => return Err(format!("message has protocol version {v}, expected {PROTOCOL_VERSION}")),
            None => return Err("message has no protocol version".into()),
        }
        serde_json::from_str::<Envelope<T>>(json).map(|e| e.message).map_err(|e| format!("malformed message: {e}"))
    }
}

/// Page → worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Train `spec` as run `run_id`, alongside any other runs in progress.
    Start {
        run_id: u32,
        spec: RunSpec,
        /// Go on from recorded episodes (after a reload): they are trained again, unsent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resume: Option<Resume>,
        /// The pace it trains at from its first episode (a `Pace` sent after it could come after
        /// the first slice of episodes at full speed).
        #[serde(default)]
        pace: Pace,
    },
    /// Hold the run after its current episode; the worker answers with the policy so far.
    Pause {
        run_id: u32,
    },
    Resume {
        run_id: u32,
    },
    /// Train one episode of a paused run.
    Step {
        run_id: u32,
    },
    /// Train the run at `pace` from now on (full speed, or so many episodes a second to watch it).
    Pace {
        run_id: u32,
        pace: Pace,
    },
    /// End training now and evaluate what was learned.
    Stop {
        run_id: u32,
    },
    /// Forget the run (the page removed it).
    Discard {
        run_id: u32,
    },
    /// Rebuild a run's trained agent (after a reload or an import), without training further, so
    /// live mode can ask it for actions: from its checkpoint when there is one, else by training
    /// its recorded episodes again.
    Restore {
        run_id: u32,
        spec: RunSpec,
        resume: Resume,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        checkpoint: Option<Checkpoint>,
    },
    /// Live mode: the greedy action of run `run_id`'s agent in a live episode's state.
    Decide {
        request_id: u32,
        run_id: u32,
        state: LiveState,
    },
    /// Load the GGUF file posted beside this message (the page sends `[message, Blob]`) as the
    /// engine's language model `model_id`, replacing any model of that id.
    LoadModel {
        model_id: u32,
        /// How messages name the file (its address in the in-tab provider).
        name: String,
        /// Where it runs: the CPU here, or WebGPU in the nested worker.
        #[serde(default)]
        backend: Backend,
    },
    /// Write a reply, streamed as `Generated` pieces, then `GenerationEnded`.
    Generate(GenerateRequest),
    /// Stop generation `request_id` after its current token (it ends as `GenerationEnded`).
    StopGeneration {
        request_id: u32,
    },
    /// The logits of model `model_id` for the token after `messages`' prompt: what the page's
    /// parity test holds to llama.cpp's recorded numbers.
    NextLogits {
        request_id: u32,
        model_id: u32,
        messages: Vec<Message>,
    },
    /// Train the GGUF file posted beside this message (`[message, Blob]`) by StepCoder's PPO
    /// (`ModelPpo`) on the first tasks of each split of the small code model's bundled tasks.
    TrainModel {
        train_id: u32,
        /// How messages name the file.
        name: String,
        spec: ModelPpoSpec,
        training_tasks: usize,
        unseen_tasks: usize,
    },
    /// The verdicts of the programs that `ProgramsToRun` asked the page's Python to run, in
    /// order, or why they could not be run (the training then ends with it).
    ProgramsRan {
        train_id: u32,
        result: Result<Vec<ProgramVerdict>, String>,
    },
    /// End training `train_id` at its next step; the model trained so far is still written.
    StopTraining {
        train_id: u32,
    },
    /// Hold training `train_id` at its next step (`paused`), or let it go on.
    PauseTraining {
        train_id: u32,
        paused: bool,
    },
}

/// Worker → page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker's wasm is loaded; messages sent before this are lost.
    Ready,
    /// Whether the worker could bring up WebGPU (asynchronously, after `Ready`): the adapter, or
    /// why not. Runs on the `wgpu` backend wait for it.
    WebGpu {
        adapter: Result<GpuAdapter, String>,
    },
    /// Episodes trained since the last progress message, per run (one message for all runs).
    Progress {
        runs: Vec<RunProgress>,
    },
    /// A run was paused (after `Pause` or a `Step`), with its policy so far.
    Paused {
        run_id: u32,
        episodes_done: u32,
        policy: Box<PolicyView>,
    },
    Resumed {
        run_id: u32,
    },
    /// Training ended (budget spent or stopped): the greedy policy's evaluation on fresh episodes
    /// and, on the orchestrator, seed 003's fixed pipeline on the same episodes.
    Finished(Box<Finished>),
    /// A run could not start or go on (`run_id` is `None` when the request itself was unreadable).
    Failed {
        run_id: Option<u32>,
        message: String,
    },
    /// The run's agent is rebuilt (after `Restore`), and how; or why not.
    Restored {
        run_id: u32,
        result: Result<Restoration, String>,
    },
    /// The answer to `Decide`: an action, or why the run cannot decide.
    Decision {
        request_id: u32,
        result: Result<usize, String>,
    },
    /// The answer to `LoadModel`: what the model is (`Gguf::describe`), or why it does not load.
    ModelLoaded {
        model_id: u32,
        result: Result<String, String>,
    },
    /// The next piece of generation `request_id`'s reply, as text, and the tokens written so far.
    Generated {
        request_id: u32,
        text: String,
        tokens: u32,
    },
    /// Generation `request_id` has ended: the whole reply, or why it could not be written.
    GenerationEnded {
        request_id: u32,
        result: Result<ModelReply, String>,
    },
    /// The answer to `NextLogits`.
    Logits {
        request_id: u32,
        result: Result<NextLogits, String>,
    },
    /// Training `train_id`'s figures so far, and what it is doing now.
    TrainingProgress {
        train_id: u32,
        doing: String,
        history: Vec<UpdateRecord>,
        measurements: Vec<PassAt1Point>,
    },
    /// Programs for the page's Python to run, each in an interpreter of its own (the model wrote
    /// them), within `limit_ms` each; answered by `ProgramsRan`.
    ProgramsToRun {
        train_id: u32,
        requests: Vec<ProgramRequest>,
        limit_ms: u32,
    },
    /// Training `train_id` has ended: why, if before its last update, with the trained model
    /// posted beside this message as a GGUF Blob; or why there is no model to keep.
    TrainingEnded {
        train_id: u32,
        result: Result<TrainingEnd, String>,
    },
}

/// How a model's training ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingEnd {
    /// Why it ended before its last update (cancelled, or a batch Python could not run).
    pub early: Option<String>,
    /// The size of the GGUF file posted beside, in bytes.
    pub bytes: u64,
}

/// A reply asked of the engine's language model `model_id`: to `messages` (a last assistant
/// message is continued).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerateRequest {
    pub request_id: u32,
    pub model_id: u32,
    pub messages: Vec<Message>,
    pub sampling: Sampling,
    pub max_tokens: u32,
    /// Seeds the draws at a temperature above 0.
    pub seed: u64,
    /// Write all `max_tokens`, past end-of-generation tokens (llama.cpp's `ignore_eos`): to time
    /// the model, as the benchmarks do.
    #[serde(default)]
    pub ignore_eos: bool,
}

/// A reply the engine's language model wrote in the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelReply {
    pub text: String,
    pub tokens: Vec<u32>,
    pub prompt_tokens: u32,
    /// Why it stopped (`Stop::name`: end, max_tokens, context_full, or stopped when asked).
    pub stop: String,
    /// Milliseconds reading the prompt (to the first token drawn), then writing the rest.
    pub prompt_ms: f64,
    pub writing_ms: f64,
}

/// The next token's logits after a chat's prompt, with the prompt as the model's template made it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NextLogits {
    pub prompt: String,
    pub tokens: Vec<u32>,
    pub logits: Vec<f32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunProgress {
    pub run_id: u32,
    pub records: RecordRows,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finished {
    pub run_id: u32,
    pub summary: RunSummary,
    pub greedy: Evaluation,
    pub fixed_pipeline: Option<Evaluation>,
    pub policy: PolicyView,
    /// Milliseconds the worker spent training this run (not counting pauses or other runs).
    pub train_ms: f64,
    /// Gradient steps, for neural agents.
    pub learn_steps: Option<u32>,
    /// The trained policy, stored with the run (absent in runs saved before checkpoints were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<Checkpoint>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentId, EnvId};

    #[test]
    fn messages_round_trip_and_stale_versions_are_refused() {
        let start = ToWorker::Start {
            run_id: 3,
            spec: RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 50),
            resume: None,
            pace: Pace::PerSecond(10.0),
        };
        let json = Envelope::encode(start.clone());
        assert_eq!(Envelope::<ToWorker>::decode(&json), Ok(start));
        let stale = json.replace("\"version\":11", "\"version\":10");
        assert_eq!(Envelope::<ToWorker>::decode(&stale).unwrap_err(), "message has protocol version 10, expected 11");
        let webgpu = FromWorker::WebGpu { adapter: Err("navigator.gpu is missing".into()) };
        assert_eq!(Envelope::<FromWorker>::decode(&Envelope::encode(webgpu.clone())), Ok(webgpu));
        assert!(
            Envelope::<ToWorker>::decode("{\"version\":11,\"message\":{\"type\":\"launch\"}}")
                .unwrap_err()
                .starts_with("malformed message")
        );
    }

    #[test]
    fn a_model_training_and_its_programs_go_both_ways() {
        let train = ToWorker::TrainModel {
            train_id: 1,
            name: "./models/rlcg-coder.gguf".into(),
            spec: ModelPpoSpec::default(),
            training_tasks: 8,
            unseen_tasks: 4,
        };
        assert_eq!(Envelope::<ToWorker>::decode(&Envelope::encode(train.clone())), Ok(train));
        let record = UpdateRecord {
            update: 1,
            tasks: vec!["sum_even".into()],
            mean_reward: -0.25,
            pass_rate: 0.5,
            special_cased: 0.0,
            kl: 0.001,
            kept_share: 0.75,
            stages: vec![("sum_even".into(), 2, 0.5)],
            policy_loss: 0.1,
            value_loss: 0.2,
        };
        let progress = FromWorker::TrainingProgress {
            train_id: 1,
            doing: "drawing update 2's rollouts".into(),
            history: vec![record],
            measurements: vec![PassAt1Point { after_updates: 0, training: 0.5, unseen: 0.25, passes: vec![1, 0] }],
        };
        assert_eq!(Envelope::<FromWorker>::decode(&Envelope::encode(progress.clone())), Ok(progress));
        let programs = FromWorker::ProgramsToRun {
            train_id: 1,
            requests: vec![ProgramRequest::with_statements(
                "def f():\n    return 1\n",
                &["assert f() == 1".to_owned()],
            )],
            limit_ms: 2000,
        };
        assert_eq!(Envelope::<FromWorker>::decode(&Envelope::encode(programs.clone())), Ok(programs));
        let ended = FromWorker::TrainingEnded {
            train_id: 1,
            result: Ok(TrainingEnd { early: Some("cancelled".into()), bytes: 6_859_680 }),
        };
        assert_eq!(Envelope::<FromWorker>::decode(&Envelope::encode(ended.clone())), Ok(ended));
    }

    #[test]
    fn a_language_model_request_reads_as_the_page_and_its_tests_write_it() {
        let json = r#"{"version":11,"message":{"type":"generate","request_id":4,"model_id":1,
            "messages":[{"role":"user","content":"hi"}],"sampling":{"temperature":0,"top_p":1},"max_tokens":8,"seed":3}}"#;
        let expected = ToWorker::Generate(GenerateRequest {
            request_id: 4,
            model_id: 1,
            messages: vec![Message { role: "user".into(), content: "hi".into() }],
            sampling: Sampling::GREEDY,
            max_tokens: 8,
            seed: 3,
            ignore_eos: false,
        });
        assert_eq!(Envelope::<ToWorker>::decode(json), Ok(expected));
        let load = r#"{"version":11,"message":{"type":"load_model","model_id":2,"name":"tiny.gguf"}}"#;
        assert_eq!(
            Envelope::<ToWorker>::decode(load),
            Ok(ToWorker::LoadModel { model_id: 2, name: "tiny.gguf".into(), backend: Backend::Ndarray })
        );
    }
}
