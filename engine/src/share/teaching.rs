//! Teaching links, as TensorFlow Playground's links can hide any part of its page: any link (a
//! run's, a search's, an ablation's) may open the page on one pane alone (`focus=search`, the others
//! folded away behind one button), and hide or lock controls of its pane's form
//! (`hide=odds&lock=method,budget`). Each form has its own controls.

/// A pane of the page, which a link can open the page on alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pane {
    Train,
    Results,
    Live,
    Search,
    Stepcoder,
    Python,
    About,
}

impl Pane {
    /// In the page's order.
    pub const ALL: [Pane; 7] =
        [Pane::Train, Pane::Results, Pane::Python, Pane::Live, Pane::Search, Pane::Stepcoder, Pane::About];

    /// Its name in a link.
    pub fn name(self) -> &'static str {
        match self {
            Pane::Train => "train",
            Pane::Results => "results",
            Pane::Live => "live",
            Pane::Search => "search",
            Pane::Stepcoder => "stepcoder",
            Pane::Python => "python",
            Pane::About => "about",
        }
    }

    /// Its title on the page.
    pub fn label(self) -> &'static str {
        match self {
            Pane::Train => "Train",
            Pane::Results => "Results",
            Pane::Live => "Live mode",
            Pane::Search => "Search",
            Pane::Stepcoder => "StepCoder",
            Pane::Python => "Python",
            Pane::About => "About",
        }
    }

    /// Whether a link that shows this pane alone shows `other` too: the Train pane's shows its
    /// results (the curves, the episode tree, the learned policy and the verdict on a shared run),
    /// which are what a class opening a teacher's link is there to see.
    pub fn shows(self, other: Pane) -> bool {
        self == other || (self == Pane::Train && other == Pane::Results)
    }

    /// The pane of that name, if any.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    fn parse(name: &str) -> Result<Self, String> {
        Self::named(name).ok_or_else(|| {
            let valid: Vec<_> = Self::ALL.iter().map(|p| p.name()).collect();
            format!("unknown pane '{name}'; valid: {}", valid.join(", "))
        })
    }
}

/// A control of one of the page's forms that a link may hide or lock.
pub trait FormControl: Copy + PartialEq + 'static {
    /// Every control of the form, in the form's order.
    const ALL: &'static [Self];
    /// Its name in a link.
    fn name(self) -> &'static str;
}

fn parse_control<C: FormControl>(name: &str) -> Result<C, String> {
    C::ALL.iter().copied().find(|c| c.name() == name).ok_or_else(|| {
        let valid: Vec<_> = C::ALL.iter().map(|c| c.name()).collect();
        format!("unknown control '{name}'; valid: {}", valid.join(", "))
    })
}

/// The run form's controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    Env,
    Agent,
    Episodes,
    Seed,
    Hyperparameters,
    Backend,
    /// The environment's parameters (rewards, odds, measured verdicts).
    EnvParams,
}

impl FormControl for Control {
    const ALL: &'static [Self] = &[
        Control::Env,
        Control::Agent,
        Control::Episodes,
        Control::Seed,
        Control::Hyperparameters,
        Control::Backend,
        Control::EnvParams,
    ];

    fn name(self) -> &'static str {
        match self {
            Control::Env => "env",
            Control::Agent => "agent",
            Control::Episodes => "episodes",
            Control::Seed => "seed",
            Control::Hyperparameters => "hyperparameters",
            Control::Backend => "backend",
            Control::EnvParams => "env-params",
        }
    }
}

/// The search form's controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SearchControl {
    Task,
    Method,
    Budget,
    Seed,
    /// The simulated LLM's odds.
    Odds,
}

impl FormControl for SearchControl {
    const ALL: &'static [Self] =
        &[SearchControl::Task, SearchControl::Method, SearchControl::Budget, SearchControl::Seed, SearchControl::Odds];

    fn name(self) -> &'static str {
        match self {
            SearchControl::Task => "task",
            SearchControl::Method => "method",
            SearchControl::Budget => "budget",
            SearchControl::Seed => "seed",
            SearchControl::Odds => "odds",
        }
    }
}

/// The StepCoder ablation form's controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AblationControl {
    Arms,
    Seeds,
    /// The budget of executions per task.
    Executions,
}

impl FormControl for AblationControl {
    const ALL: &'static [Self] = &[AblationControl::Arms, AblationControl::Seeds, AblationControl::Executions];

    fn name(self) -> &'static str {
        match self {
            AblationControl::Arms => "arms",
            AblationControl::Seeds => "seeds",
            AblationControl::Executions => "executions",
        }
    }
}

/// What a teacher's link does to the page: the pane it opens alone, and the controls of its form
/// it hides or locks.
#[derive(Clone, Debug, PartialEq)]
pub struct Teaching<C> {
    pub focus: Option<Pane>,
    pub hidden: Vec<C>,
    pub locked: Vec<C>,
}

impl<C> Default for Teaching<C> {
    fn default() -> Self {
        Self { focus: None, hidden: Vec::new(), locked: Vec::new() }
    }
}

impl<C: FormControl> Teaching<C> {
    /// Its fields in a link.
    pub const FIELDS: [&str; 3] = ["focus", "hide", "lock"];

    pub fn hides(&self, control: C) -> bool {
        self.hidden.contains(&control)
    }

    pub fn locks(&self, control: C) -> bool {
        self.locked.contains(&control)
    }

    pub(super) fn append(&self, out: &mut form_urlencoded::Serializer<String>) {
        if let Some(pane) = self.focus {
            out.append_pair("focus", pane.name());
        }
        for (key, list) in [("hide", &self.hidden), ("lock", &self.locked)] {
            if !list.is_empty() {
                out.append_pair(key, &list.iter().map(|c| c.name()).collect::<Vec<_>>().join(","));
            }
        }
    }

    /// Reads `focus`, `hide` and `lock`; a bad one is named and left out.
    pub(super) fn read<'a>(problems: &mut Vec<String>, get: impl Fn(&str) -> Option<&'a str>) -> Self {
        let list = |v: &str| {
            let mut controls = Vec::new();
            for name in v.split(',').filter(|c| !c.is_empty()) {
                let control = parse_control::<C>(name)?;
                if !controls.contains(&control) {
                    controls.push(control);
                }
            }
            Ok(controls)
        };
        Self {
            focus: super::read(problems, "focus", get("focus"), None, |v| Pane::parse(v).map(Some)),
            hidden: super::read(problems, "hide", get("hide"), Vec::new(), list),
            locked: super::read(problems, "lock", get("lock"), Vec::new(), list),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::share::ShareLink;
    use crate::share::ablation_link::AblationLink;
    use crate::share::search_link::SearchLink;

    fn any_teaching<C: FormControl + std::fmt::Debug>() -> impl Strategy<Value = Teaching<C>> {
        let controls = || proptest::sample::subsequence(C::ALL.to_vec(), 0..=C::ALL.len());
        (proptest::option::of(proptest::sample::select(Pane::ALL.to_vec())), controls(), controls())
            .prop_map(|(focus, hidden, locked)| Teaching { focus, hidden, locked })
    }

    #[test]
    fn a_link_to_the_train_pane_shows_its_results_and_no_other_pane() {
        let shown: Vec<Pane> = Pane::ALL.into_iter().filter(|&p| Pane::Train.shows(p)).collect();
        assert_eq!(shown, [Pane::Train, Pane::Results]);
        assert_eq!(Pane::ALL.into_iter().filter(|&p| Pane::Search.shows(p)).collect::<Vec<_>>(), [Pane::Search]);
    }

    #[test]
    fn a_focused_locked_search_link_is_readable_and_round_trips() {
        let (mut link, _) = SearchLink::decode("v=1&search=gif-mcts&task=binary_search&budget=12&seed=3");
        link.teaching = Teaching {
            focus: Some(Pane::Search),
            hidden: vec![SearchControl::Odds],
            locked: vec![SearchControl::Method, SearchControl::Budget],
        };
        let fragment = link.encode();
        assert!(fragment.ends_with("&focus=search&hide=odds&lock=method%2Cbudget"), "{fragment}");
        assert_eq!(SearchLink::decode(&fragment), (link.clone(), vec![]));
        assert!(link.teaching.locks(SearchControl::Budget) && !link.teaching.locks(SearchControl::Seed));
        assert!(link.teaching.hides(SearchControl::Odds));
    }

    #[test]
    fn bad_teaching_fields_are_named_and_left_out() {
        let (link, problems) = AblationLink::decode("v=1&stepcoder=learn&seeds=4&focus=everything&lock=arms,odds");
        assert_eq!(link.teaching, Teaching::default());
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("focus: unknown pane 'everything'; valid: train, results"), "{problems:?}");
        assert!(
            problems[1].starts_with("lock: unknown control 'odds'; valid: arms, seeds, executions"),
            "{problems:?}"
        );
        // A control named twice counts once.
        let (link, problems) = ShareLink::decode("v=1&env=orchestrator&lock=seed,seed&focus=results");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(link.teaching, Teaching { focus: Some(Pane::Results), hidden: vec![], locked: vec![Control::Seed] });
    }

    proptest! {
        #[test]
        fn every_kind_of_link_carries_any_teaching(
            run in any_teaching::<Control>(),
            search in any_teaching::<SearchControl>(),
            ablation in any_teaching::<AblationControl>(),
        ) {
            let run_link = ShareLink { teaching: run, ..ShareLink::default() };
            prop_assert_eq!(ShareLink::decode(&run_link.encode()), (run_link, vec![]));
            let (mut search_link, _) = SearchLink::decode("v=1&search=gif-mcts&task=binary_search");
            search_link.teaching = search;
            prop_assert_eq!(SearchLink::decode(&search_link.encode()), (search_link, vec![]));
            let (mut ablation_link, _) = AblationLink::decode("v=1&stepcoder=learn&seeds=3");
            ablation_link.teaching = ablation;
            prop_assert_eq!(AblationLink::decode(&ablation_link.encode()), (ablation_link, vec![]));
        }

        #[test]
        fn any_search_or_ablation_text_decodes_without_panicking(
            text in "(focus|hide|lock|search|stepcoder|seeds|arms|task|budget|[a-z.]{1,6})=[a-z,0-9%.-]{0,20}(&(focus|hide|lock|[a-z.]{1,6})=[a-z,0-9%.-]{0,20}){0,6}",
        ) {
            let (search, _) = SearchLink::decode(&format!("v=1&search=gif-mcts&{text}"));
            prop_assert_eq!(SearchLink::decode(&search.encode()).0.teaching, search.teaching);
            let (ablation, _) = AblationLink::decode(&format!("v=1&stepcoder=learn&{text}"));
            prop_assert_eq!(AblationLink::decode(&ablation.encode()).0.teaching, ablation.teaching);
        }
    }
}
