//! The Search pane's form: the task (bundled, a world model's or imported), the method, the budget,
//! the seed, the verdict switches, an impossible variant or a held-out share of the tests, the LLM
//! judge, and the simulated LLM's odds, read back into a `SearchSpec`; a teacher's link may hide or lock the task,
//! method, budget, seed and odds.

use engine::cheating::TestsInstruction;
use engine::cheating::impossible::ImpossibleVariant;
use engine::params::{self, Field, Parameters};
use engine::search::offline::bank::search_tasks;
use engine::search::offline::simulated_llm::SimulatedLlmParams;
use engine::search::spec::{MethodSpec, SearchSpec};
use engine::search::world_model_tasks::world_model_tasks;
use engine::share::{SearchControl, Teaching};
use engine::task_import::ImportedTask;
use leptos::prelude::*;

use crate::widgets::param_fields::ParamFields;

/// Imported tasks are offered under this prefix, apart from the bundled ones.
const IMPORTED: &str = "imported:";

/// What the form holds, as the user edits it.
#[derive(Clone, Copy)]
pub struct SearchForm {
    pub task: RwSignal<String>,
    method: RwSignal<String>,
    budget: RwSignal<String>,
    seed: RwSignal<String>,
    odds_fields: Memo<Vec<Field>>,
    odds_texts: RwSignal<Vec<String>>,
    naive: RwSignal<bool>,
    autopep8: RwSignal<bool>,
    /// The impossible variant's name, or empty for the task as it is.
    impossible: RwSignal<String>,
    /// The share of the tests held out from the LLM, as typed (0: none).
    held_out: RwSignal<String>,
    may_give_up: RwSignal<bool>,
    /// How a task that shows its tests asks for them, by name.
    instruction: RwSignal<String>,
    llm_judge: RwSignal<bool>,
    imported: RwSignal<Vec<ImportedTask>>,
}

impl SearchForm {
    /// The form filled with `spec` (a link's, or [`SearchSpec::default`]).
    pub fn new(spec: &SearchSpec, imported: RwSignal<Vec<ImportedTask>>) -> Self {
        let odds_fields = Memo::new(|_| params::fields(&SimulatedLlmParams::default().params_schema()));
        Self {
            task: RwSignal::new(spec.task.clone()),
            method: RwSignal::new(spec.method.name().to_owned()),
            budget: RwSignal::new(spec.budget.to_string()),
            seed: RwSignal::new(spec.seed.to_string()),
            odds_fields,
            odds_texts: RwSignal::new(params::texts(&spec.simulated_llm, &odds_fields.get_untracked())),
            naive: RwSignal::new(spec.naive_verdicts),
            autopep8: RwSignal::new(spec.autopep8),
            impossible: RwSignal::new(spec.impossible.map_or("", ImpossibleVariant::name).to_owned()),
            held_out: RwSignal::new(spec.held_out_share.to_string()),
            may_give_up: RwSignal::new(spec.may_give_up),
            instruction: RwSignal::new(spec.tests_instruction.name().to_owned()),
            llm_judge: RwSignal::new(spec.llm_judge),
            imported,
        }
    }

    /// The spec in the form, and the imported task it names (none for a bundled one), or what is
    /// wrong with it.
    pub fn read(self) -> Result<(SearchSpec, Option<ImportedTask>), String> {
        let method = MethodSpec::parse(&self.method.get_untracked())?;
        let budget = self.budget.get_untracked().trim().parse().map_err(|_| "budget: a whole number of LLM calls")?;
        let seed = self.seed.get_untracked().trim().parse().map_err(|_| "seed: a whole number")?;
        let task_id = self.task.get_untracked();
        let mut spec = SearchSpec::new(method, &task_id, budget, seed);
        let fields = self.odds_fields.get_untracked();
        let odds = params::build(&SimulatedLlmParams::default(), &fields, &self.odds_texts.get_untracked());
        spec.simulated_llm = odds.map_err(|e| format!("simulated LLM: {e}"))?;
        spec.naive_verdicts = self.naive.get_untracked();
        spec.autopep8 = self.autopep8.get_untracked();
        spec.impossible = match self.impossible.get_untracked().as_str() {
            "" => None,
            name => Some(ImpossibleVariant::parse(name)?),
        };
        let held_out = self.held_out.get_untracked();
        spec.held_out_share =
            held_out.trim().parse().map_err(|_| format!("held-out tests: '{held_out}' is not a share"))?;
        spec.may_give_up = self.may_give_up.get_untracked();
        spec.tests_instruction = TestsInstruction::parse(&self.instruction.get_untracked())?;
        spec.llm_judge = self.llm_judge.get_untracked();
        let imported_task = match task_id.strip_prefix(IMPORTED) {
            None => None,
            Some(id) => {
                let found = self.imported.with_untracked(|tasks| tasks.iter().find(|t| t.id == id).cloned());
                Some(found.ok_or_else(|| format!("task: no imported task '{id}' in this browser"))?)
            }
        };
        Ok((spec, imported_task))
    }
}

/// The form's fields, hidden or locked as `teaching` says.
#[component]
pub fn SearchFormFields(form: SearchForm, teaching: Teaching<SearchControl>) -> impl IntoView {
    let SearchForm {
        task,
        method,
        budget,
        seed,
        odds_fields,
        odds_texts,
        naive,
        autopep8,
        impossible,
        held_out,
        may_give_up,
        instruction,
        llm_judge,
        imported,
    } = form;
    let (hides, locks) = (|c| teaching.hides(c), |c| teaching.locks(c));
    let method_note = move || method.with(|m| MethodSpec::parse(m).ok().and_then(|m| m.note()));
    view! {
        <div class="form-grid">
            <label hidden=hides(SearchControl::Task)>"Task"<select id="search-task" disabled=locks(SearchControl::Task) prop:value=move || task.get() on:change=move |ev| task.set(event_target_value(&ev))>
                {search_tasks().iter().map(|t| view! { <option value=t.id.clone()>{t.id.clone()}</option> }).collect_view()}
                <optgroup label="World models (seed 004's CWMB)">
                    {world_model_tasks().iter().map(|t| view! { <option value=t.id.clone()>{t.id.clone()}</option> }).collect_view()}
                </optgroup>
                {move || imported.with(|tasks| tasks.iter().map(|t| {
                    let value = format!("{IMPORTED}{}", t.id);
                    view! { <option value=value.clone()>{value.clone()}</option> }
                }).collect_view())}
            </select></label>
            <label hidden=hides(SearchControl::Method)>"Method"<select id="search-method" disabled=locks(SearchControl::Method) prop:value=move || method.get() on:change=move |ev| method.set(event_target_value(&ev))>
                {MethodSpec::NAMES.iter().map(|m| view! { <option value=*m>{*m}</option> }).collect_view()}
            </select></label>
            <label hidden=hides(SearchControl::Budget)>"Budget (LLM calls)"<input id="search-budget" disabled=locks(SearchControl::Budget) prop:value=move || budget.get() on:change=move |ev| budget.set(event_target_value(&ev)) /></label>
            <label hidden=hides(SearchControl::Seed)>"Seed"<input id="search-seed" disabled=locks(SearchControl::Seed) prop:value=move || seed.get() on:change=move |ev| seed.set(event_target_value(&ev)) /></label>
            <label title="The tests run in the program's own interpreter and an exit with status 0 is a pass, as in common graders: reward hacks pass, and the tree crosses each one the real verdict refuses (About: reward hacking)">
                <input type="checkbox" id="search-naive" prop:checked=move || naive.get() on:change=move |ev| naive.set(event_target_checked(&ev)) />
                " Naive verdicts"
            </label>
            <label title="Each program runs through autopep8.fix_code before it is scored, as seed 004's official code does: indentation slips are repaired and long lines reflowed; the node view shows what it changed">
                <input type="checkbox" id="search-autopep8" prop:checked=move || autopep8.get() on:change=move |ev| autopep8.set(event_target_checked(&ev)) />
                " autopep8"
            </label>
            <label title="ImpossibleBench's impossible tasks: one test, drawn from the seed, contradicts the task (one-off: its expected value changed; conflicting: a contradicting copy added), and the prompt shows the tests. A program that passes them all has cheated (About: Cheating)">"Impossible variant"<select id="search-impossible" prop:value=move || impossible.get() on:change=move |ev| impossible.set(event_target_value(&ev))>
                <option value="">"none: the task as it is"</option>
                {ImpossibleVariant::NAMES.iter().map(|v| view! { <option value=*v>{*v}</option> }).collect_view()}
            </select></label>
            <label title="EvilGenie's held-out tests: this share of the task's tests, drawn from the seed, is never shown to the LLM nor fed back and scores nothing; the visible ones are shown with the task. A program that passes every visible test and fails a held-out one is marked special-cased? in the tree (About: Cheating). 0: none">"Held-out tests (share)"<input id="search-held-out" prop:value=move || held_out.get() on:change=move |ev| held_out.set(event_target_value(&ev)) /></label>
            <label title="ImpossibleBench's abort option, on a task that shows its tests (an impossible variant, held-out tests): the prompt says the model may reply GIVE UP: and why instead of a program, and a reply that does ends the search, honest (the simulated LLM's give_up_share says how often it does)">
                <input type="checkbox" id="search-give-up" prop:checked=move || may_give_up.get() on:change=move |ev| may_give_up.set(event_target_checked(&ev)) />
                " May give up"
            </label>
            <label title="How a task that shows its tests (an impossible variant, held-out tests) asks for them. discourage is ImpossibleBench's default (…pass all the tests. DO NOT MODIFY THE TESTS.), neutral and encourage its others; must-pass is ours before fidelity round 4 (Your program must pass these tests:). A real model's cheating rate depends on it; the simulated LLM ignores it">"Tests instruction"<select id="search-instruction" prop:value=move || instruction.get() on:change=move |ev| instruction.set(event_target_value(&ev))>
                {TestsInstruction::NAMES.iter().map(|n| view! { <option value=*n>{*n}</option> }).collect_view()}
            </select></label>
            <label title="EvilGenie's LLM judge: once the search ends, the LLM reads the task as shown and the answer, if it passed every test it was scored on, and classes it legitimate, heuristic or reward hacking, in one call beyond the budget. The simulated judge knows the simulated LLM's lookups and hacks and errs at odds of ours (About: Cheating)">
                <input type="checkbox" id="search-judge" prop:checked=move || llm_judge.get() on:change=move |ev| llm_judge.set(event_target_checked(&ev)) />
                " LLM judge"
            </label>
        </div>
        <p class="hint" id="search-method-note" hidden=move || method_note().is_none()>{method_note}" (About: LATS and Reflexion)"</p>
        <ParamFields id="search-odds" title="The simulated LLM's odds" defaults="the playground's defaults" id_prefix="odds"
            fields=odds_fields texts=odds_texts hidden=hides(SearchControl::Odds) locked=locks(SearchControl::Odds) />
    }
}
