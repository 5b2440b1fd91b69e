//! The small code model's starting point (issue 69): greedy pass@1 of `models/rlcg-coder.gguf` on
//! StepCoder's training tasks and on tasks it never trains on, run by the engine's transformer
//! with llama.cpp's numerics and judged by python3 through the page's harness.

use engine::lm::gguf::{Gguf, TensorInfo};
use engine::python::Outcome;
use engine::reproduce::{Scale, Table, percent};
use engine::stepcoder::coder_tasks::coder_tasks;
use engine::stepcoder::model_pass_at_1::PassAt1Spec;

use crate::common::{Failure, usage};
use crate::lm::{CODE_MODEL, pass_at_1};

/// The same at both scales: one greedy reply per task takes seconds.
pub fn tables(scale: Scale, _jobs: Option<usize>) -> Result<Vec<Table>, Failure> {
    let parameters: u64 = Gguf::parse(CODE_MODEL).map_err(usage)?.tensors.iter().map(TensorInfo::count).sum();
    let spec = PassAt1Spec::default();
    let report = pass_at_1(CODE_MODEL, coder_tasks(), spec)?;
    let rows = report
        .splits
        .iter()
        .map(|split| {
            let of_split = report.results.iter().filter(|r| r.split == split.split);
            let count = |outcome: Outcome| of_split.clone().filter(|r| r.outcome == Some(outcome)).count().to_string();
            vec![
                split.split.name().to_owned(),
                split.tasks.to_string(),
                format!("{} ({})", split.passed, percent(split.share())),
                count(Outcome::FailedTest),
                count(Outcome::RuntimeError),
                count(Outcome::CompileError),
            ]
        })
        .collect();
    Ok(vec![Table {
        id: "code-model",
        made_by: format!(
            "`{}`: `models/rlcg-coder.gguf` ({:.1} M parameters, Qwen2's architecture, F16; pretrained from scratch \
             by `scripts/code-model/make.py` on programs written from templates, none of them a task's), greedy, \
             at most {} tokens, every program run against its tests and hidden tests. The target of issue 69: \
             between 10% and 60% on the training tasks, lower but not zero on the unseen ones.",
            scale.command("code-model"),
            parameters as f64 / 1e6,
            spec.max_tokens,
        ),
        header: ["split", "tasks", "greedy pass@1", "failed a test", "runtime error", "compile error"]
            .map(String::from)
            .to_vec(),
        rows,
    }])
}
