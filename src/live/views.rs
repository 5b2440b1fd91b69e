//! What the live pane shows of its episodes: the blackboard, the steps, the episodes so far and
//! seed 003's validation table.

use engine::cheating::held_out::HeldOutScore;
use engine::effects::BlackboardMessage;
use engine::live::validation::{DriverTotals, ValidationRow, ValidationTable};
use engine::live::{LiveStep, LiveSummary};
use leptos::prelude::*;

use crate::live::launch::HistoryRow;

/// The blackboard's messages in time order (seed 003 §2.2: sender, receiver, type, content, time).
#[component]
pub(super) fn BlackboardTable(messages: RwSignal<Vec<BlackboardMessage>>) -> impl IntoView {
    view! {
        <h3>"Blackboard"</h3>
        <div class="scroll" tabindex="0">
            <table id="live-timeline">
                <thead><tr><th scope="col">"Time"</th><th scope="col">"From"</th><th scope="col">"To"</th><th scope="col">"Type"</th><th scope="col">"Content"</th></tr></thead>
                <tbody>{move || messages.get().into_iter().map(|m| view! {
                    <tr class=format!("message {}", kind_name(&m))>
                        <td>{format!("{:.2} s", m.time_ms / 1000.0)}</td><td>{m.sender.clone()}</td>
                        <td>{m.receiver.clone().unwrap_or_else(|| "all".into())}</td><td>{kind_name(&m)}</td>
                        <td><pre>{m.content.clone()}</pre></td>
                    </tr>
                }).collect_view()}</tbody>
            </table>
        </div>
    }
}

/// The episode's steps: action, reward, why it did nothing, the test verdict and the code.
#[component]
pub(super) fn LiveSteps(steps: RwSignal<Vec<(String, LiveStep)>>) -> impl IntoView {
    view! {
        <h3>"Steps"</h3>
        <ol id="live-steps">{move || steps.get().into_iter().map(|(name, step)| {
            let held_out = step.held_out.as_ref().map(|h| format!(" · {h}")).unwrap_or_default();
            let verdict = step.verdict.as_ref().map(|v| format!(
                "{}: {}/{} tests passed{held_out} · {} lines ran", v.outcome.label(), v.number_passed, v.total, v.executed_lines.len()));
            let special_cased = step.special_cased().map(str::to_owned);
            view! {
                <li class="live-step">
                    <strong>{name}</strong>{format!(" · reward {:+.1}", step.reward)}
                    {step.note.clone().map(|n| view! { <span class="note">" · "{n}</span> })}
                    {verdict.map(|v| view! { <p class="verdict">{v}</p> })}
                    {special_cased.map(|test| view! { <p class="special-cased">"special-cased? It passes every visible test and fails the held-out "<code>{test}</code></p> })}
                    {(!step.code.is_empty()).then(|| view! { <details><summary>"code"</summary><pre>{step.code.clone()}</pre></details> })}
                </li>
            }
        }).collect_view()}</ol>
    }
}

/// Every episode played in this pane, to compare drivers, tasks and LLMs.
#[component]
pub(super) fn LiveHistory(history: RwSignal<Vec<HistoryRow>>) -> impl IntoView {
    view! {
        <h3>"Episodes so far"</h3>
        <table id="live-history" hidden=move || history.with(Vec::is_empty)>
            <thead><tr><th scope="col">"Driver"</th><th scope="col">"Task"</th><th scope="col">"LLM"</th><th scope="col">"Success"</th>
                <th scope="col">"Agent calls"</th><th scope="col">"LLM calls"</th><th scope="col">"Tokens"</th><th scope="col">"Written at"</th><th scope="col">"Cost"</th></tr></thead>
            <tbody>{move || history.get().into_iter().map(|row| view! {
                <tr><td>{row.driver}</td><td>{row.task}</td><td>{row.llm}</td><td>{if row.summary.success { "yes" } else { "no" }}</td>
                    <td>{row.summary.agent_calls}</td><td>{row.summary.llm_calls}</td><td>{row.summary.usage.total()}</td>
                    <td class="speed">{row.summary.usage.speed_on(&row.device).unwrap_or_else(|| "—".into())}</td><td>{format!("${:.4}", row.cost)}</td></tr>
            }).collect_view()}</tbody>
        </table>
    }
}

fn kind_name(message: &BlackboardMessage) -> String {
    serde_json::to_value(message.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// Seed 003 §5.2 and §5.3's tables: each task's success, steps and actions under the learned
/// policy and the fixed pipeline, the success rates, the total agent calls and their change.
#[component]
pub(super) fn ValidationView(table: RwSignal<Option<ValidationTable>>) -> impl IntoView {
    let cell = |row: Option<&ValidationRow>| {
        match row {
        Some(row) => view! {
            <td class="success">{if row.success { "✓" } else { "✗" }}</td><td>{row.steps}</td><td>{row.actions.join(" → ")}</td>
        }.into_any(),
        None => view! { <td></td><td></td><td></td> }.into_any(),
    }
    };
    view! {
        <section id="live-validation" hidden=move || table.with(Option::is_none)>
            <h3>"Seed 003 §5.2: the learned policy and the fixed pipeline on five real tasks"</h3>
            {move || table.get().map(|t| {
                let rate = |d: &DriverTotals| format!("{:.0}%", d.success_rate() * 100.0);
                let change = t.change_in_agent_calls.map_or_else(|| "—".to_owned(), |c| format!("{c:+.1}%"));
                let held_out = t.rows.iter().any(|r| r.summary.held_out.is_some());
                let marked = |d: &DriverTotals| format!("{} of {}", d.special_cased, d.successes);
                view! {
                    <table id="validation-table">
                        <thead>
                            <tr><th scope="col" rowspan="2">"Task"</th><th scope="colgroup" colspan="3">"Learned policy"</th><th scope="colgroup" colspan="3">"Fixed pipeline"</th></tr>
                            <tr><th scope="col">"Success"</th><th scope="col">"Steps"</th><th scope="col">"Actions"</th><th scope="col">"Success"</th><th scope="col">"Steps"</th><th scope="col">"Actions"</th></tr>
                        </thead>
                        <tbody>{t.rows.chunks(2).map(|pair| view! {
                            <tr><th scope="row">{pair[0].task.clone()}</th>{cell(pair.first())}{cell(pair.get(1))}</tr>
                        }).collect_view()}</tbody>
                        <tfoot>
                            <tr><th scope="row">"Success rate"</th><td colspan="3" id="validation-policy-rate">{rate(&t.policy)}</td><td colspan="3" id="validation-pipeline-rate">{rate(&t.pipeline)}</td></tr>
                            <tr><th scope="row">"Total agent calls"</th><td colspan="3" id="validation-policy-calls">{t.policy.agent_calls}</td><td colspan="3" id="validation-pipeline-calls">{t.pipeline.agent_calls}</td></tr>
                            <tr><th scope="row">"Change in agent calls"</th><td colspan="6" id="validation-change">{change}</td></tr>
                            {held_out.then(|| view! {
                                <tr><th scope="row">"Special-cased? (of the successes)"</th><td colspan="3" id="validation-policy-special">{marked(&t.policy)}</td><td colspan="3" id="validation-pipeline-special">{marked(&t.pipeline)}</td></tr>
                            })}
                        </tfoot>
                    </table>
                }
            })}
            <p class="hint">"The seed's figures: success on 5 of 5 tasks, each in 2 steps (coder → tester); 10 agent calls against the fixed pipeline's 23, −56.5%. Its tasks are named only; the prompts and tests here are ours (tasks/seed003.json)."</p>
        </section>
    }
}

/// The finished episode's outcome and costs, and a special-cased program's held-out test.
#[component]
pub(super) fn LiveSummaryLine(summary: RwSignal<Option<(LiveSummary, f64, String)>>) -> impl IntoView {
    view! {
        <p id="live-summary" hidden=move || summary.get().is_none()>{move || summary.get().map(|(s, cost, device)| format!(
            "{}{} · return {:.1} · agent calls {} · LLM calls {} · test runs {} · tokens {} ({} prompt, {} completion){} · cost ${cost:.4}",
            if s.success { "success" } else { "no success" }, held_out_words(s.held_out.as_ref()), s.episode_return, s.agent_calls,
            s.llm_calls, s.test_runs, s.usage.total(), s.usage.prompt_tokens, s.usage.completion_tokens,
            s.usage.speed_on(&device).map(|speed| format!(", written at {speed}")).unwrap_or_default()))}</p>
        {move || summary.get().and_then(|(s, ..)| s.special_cased().map(|test| view! {
            <p id="live-special-cased" class="special-cased">"special-cased? The final program passes every visible test and fails the held-out "<code>{test.to_owned()}</code></p>
        }))}
    }
}

/// How a program did on the tests held out from the LLM, for a summary (empty when none were).
fn held_out_words(held_out: Option<&HeldOutScore>) -> String {
    held_out.map(|h| format!(" · {h}")).unwrap_or_default()
}
