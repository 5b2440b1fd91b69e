//! The About section: the reports the playground reproduces, every environment and agent with its
//! source, the reproductions that re-run in the tab, and the build's name for bug reports.

use engine::search::spec::MethodSpec;
use engine::{AgentId, EnvId};
use leptos::prelude::*;

mod reproductions;

use reproductions::Reproductions;

/// Where each environment and agent comes from.
const SEEDS: [(&str, &str, &str); 4] = [
    (
        "seed-000",
        "Reinforcement-Learning-based Executive & Hierarchical Models for LLM Code Generation",
        "A. Hosseinpour, M. Vafapour, final project report, 2026: the executive and planner environments, the dueling double DQN with action masking, hierarchical inference.",
    ),
    (
        "seed-002",
        "StepCoder: Improve Code Generation with Reinforcement Learning from Compiler Feedback",
        "Dou et al., 2024 (arXiv:2402.01391): the reward classes of unit-test outcomes used by the Python harness.",
    ),
    (
        "seed-003",
        "Reinforcement Learning for Agentic Workflow Systems: Multi-Agent Code Generation Orchestration Using Q-Learning and Thompson Sampling",
        "N. Shetty, INFO 7375 project, 2025: the orchestrator environment, tabular Q-learning, Thompson sampling and the fixed-pipeline baseline.",
    ),
    (
        "seed-004",
        "Generating Code World Models with Large Language Models Guided by Monte Carlo Tree Search",
        "Dainese, Merler, Alakuijala, Marttinen, NeurIPS 2024 (arXiv:2405.15383): GIF-MCTS.",
    ),
];

/// The build's name, for bug reports: the commit and the content hash that the build wrote into the
/// page (`scripts/precache-list.mjs`; the content hash is also the offline cache's version).
fn build_version() -> String {
    let meta = |name: &str| {
        web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector(&format!("meta[name={name}]")).ok().flatten())
            .and_then(|m| m.get_attribute("content"))
    };
    match (meta("rlcg-commit"), meta("rlcg-content")) {
        (Some(commit), Some(content)) => format!("commit {commit}, content {content}"),
        _ => "not named: this page was built without the build hook".to_string(),
    }
}

#[component]
pub fn About() -> impl IntoView {
    view! {
        <section aria-labelledby="about-heading" class="panel about" id="about">
            <h2 id="about-heading">"Environments"</h2>
            <ul class="cards">
                {EnvId::ALL.iter().map(|e| view! {
                    <li><strong>{e.name()}</strong>" — "{e.summary()}" "<a href=format!("#{}", e.source())>"(source)"</a></li>
                }).collect_view()}
            </ul>
            <h2>"Agents"</h2>
            <ul class="cards">
                {AgentId::ALL.iter().map(|a| view! {
                    <li><strong>{a.name()}</strong>" — "{a.summary()}" "<a href=format!("#{}", a.source())>"(source)"</a></li>
                }).collect_view()}
            </ul>
            <h2 id="reward-hacking">"Reward hacking"</h2>
            <p>"Every reward here is a verdict of a program's tests, so a learner that optimises it can learn to game the verdict instead of writing the program: return a value that says it equals anything, patch the grader, exit with status 0 before the tests, read the expected answer from the test's own code. Models trained on unit-test rewards do exactly this (Baker et al., 2025, “Monitoring reasoning models for misbehavior”; Denison et al., 2024, “Sycophancy to subterfuge”), and Skalse et al. (2022, “Defining and characterizing reward hacking”) show why any proxy reward can be gamed."</p>
            <p>"This playground's verdicts are built not to be: the program runs in an interpreter of its own, the tests in another that it cannot reach, and only plain data of exact builtin types crosses between them (EvalPlus compares outputs that way; Liu et al., 2023). A hack that is caught gets the outcome “tampered”, what was caught, and the reward of a runtime error. To watch hacking succeed, tick “Naive verdicts” in the Search pane and raise the simulated LLM's “hack_share”: the search then converges on hacks and reports the task solved, and the tree crosses every node the real verdict refuses. docs/guide.md lists each kind of hack and what catches it."</p>
            <h2 id="cheating">"Cheating"</h2>
            <p>"Some cheating does nothing a harness could refuse. A model told to make tests pass may answer the inputs it was shown from a table and be wrong everywhere else (special-casing), or pass a test that contradicts the task. ImpossibleBench (Zhong et al., 2025) measures the second: it mutates one test of each task so that it contradicts the specification (“one-off”: its expected value changed; “conflicting”: a contradicting copy added), shows the model the tests, and counts every pass as cheating. Choose an “Impossible variant” in the Search pane and raise the simulated LLM's “special_case_share”: a search that ends with every test passed says it cheated, and `rlcg cheat-rate` gives the rate over many variants with its interval. A lookup of the shown inputs passes a one-off variant but never a conflicting one, since it answers an input one way. Special-casing that does no harm on a possible task needs held-out tests, EvilGenie's measure (2025): set “Held-out tests (share)” and that share of the task's tests, drawn from the seed, is never shown or fed back and scores nothing; a program that passes every visible test and fails a held-out one is marked special-cased? in the tree, with the test. It is a question, not a verdict: an honest program with a bug only a held-out test reaches is marked too, and a search that stops at its first program to pass the visible tests is marked often (docs/reproductions.md measures how often). “May give up” is ImpossibleBench's abort option: the prompt says the model may reply GIVE UP: and why instead of a program, and a reply that does ends the search, honest. “LLM judge” is EvilGenie's third detector: once the search ends, the LLM reads the task and the answer and classes it legitimate, heuristic or reward hacking, in one call beyond the budget; the Cheating view then says how often it agreed with the held-out tests and with naive verdicts (the simulated judge knows the simulated LLM's cheats and errs at odds of ours, so with it the agreement measures the tests, not a judge). The Cheating view under the tree measures either on every bundled task, per reply, for the LLM chosen in Live mode, with its interval and each cheat to open. docs/guide.md has the measures and their limits."</p>
            <h2 id="lats">"LATS and Reflexion"</h2>
            <p>"LATS (Zhou et al., ICML 2024) searches a tree of programs by UCT; Reflexion (Shinn et al., 2023), its baseline, retries one program. Neither sees the task's tests: the LLM writes unit tests, each program runs on them, and a failing one gets a written reflection that the next program is asked to use. Self-written tests can be wrong or prove nothing, and a search that trusts them fools itself; the tree shows each node's own tests, what they said, its reflection and LATS's backed-up value. Both run as their official code does, which differs from the paper: each new child makes LATS rerun and reflect again on every sibling before it, and LATS checks the task's tests whenever a child passes its own (and on every child in its last iteration), stopping at the first that passes, so what it reports as pass@1 is closer to pass@k. The lats method does that; lats-strict shows the task's tests to nobody but the final answer. docs/reproductions.md compares them with seed 004's methods at 10, 20 and 40 calls."</p>
            <p id="lats-note">{MethodSpec::parse("lats").ok().and_then(|lats| lats.note())}" A test the model wrote must read assert f(<literals>) == <literal>, so that no code of it runs beside the judge."</p>
            <Reproductions />
            <h2>"Sources"</h2>
            <ol class="sources">
                {SEEDS.iter().map(|(id, title, note)| view! { <li id=*id><cite>{*title}</cite>". "{*note}</li> }).collect_view()}
            </ol>
            <h2>"This build"</h2>
            <p id="build-version">{build_version()}</p>
        </section>
    }
}
