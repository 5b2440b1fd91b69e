//! The paper's planner (seed 004 §5.3, App. H; sheet §3.5; the official `StochasticMCTS`): at every
//! real step a fresh tree of `simulations` simulations with a model of the environment, then an
//! action drawn from the softmax of the root's action values.
//!
//! - The tree alternates state nodes and state-action nodes; a state-action node's children are
//!   the states the model gave, told apart by their observation, so a stochastic model grows one
//!   child per outcome.
//! - Selection is UCT, `Q + c·√(ln N / (n + ε))`, with `unvisited_value` as an unvisited action's Q.
//!   The root counts one visit before its first simulation and ties are broken at random, as the
//!   official `run` and `select_and_expand` do (`root_counted`, `random_ties`).
//! - A new state is valued by a uniformly random rollout of at most `rollout_steps` actions,
//!   `Σ γ^i r_i`; a terminal one is worth 0; values back up as `r + γ·v`.
//! - The action is drawn from softmax(Q / T), an unvisited action's Q counting 0.
//!
//! The model is anything that steps a state ([`Model`]): the true environment (the oracle), a
//! code world model tabulated over its states ([`super::tabulated`]), or the real one's copy.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gym::{GymEnv, GymObs};
use crate::rng::RunRng;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PlannerParams {
    /// Simulations per real step (the paper's I = 25).
    pub simulations: u32,
    /// UCT's exploration constant c (1.0).
    pub exploration: f64,
    /// γ of the rollouts and backups (0.99).
    pub discount: f64,
    /// Uniformly random actions a leaf's rollout takes at most (100).
    pub rollout_steps: u32,
    /// Temperature T of the softmax that picks the action (0.01: nearly greedy).
    pub temperature: f64,
    /// ε of UCT's visit count, n + ε (the official code's 1e-3; the paper writes 1).
    pub visit_epsilon: f64,
    /// The Q an unvisited action has in UCT (the official `default_Q`, 1.0).
    pub unvisited_value: f64,
    /// The root counts one visit before its first simulation, as the official `run` does, so its
    /// N is the simulations so far plus one (false: N starts at 0 and ln(max(1, N)) is used, this
    /// project's earlier rule, under which the second simulation sees ln 1 = 0 and repeats an action
    /// whose Q passed `unvisited_value`).
    pub root_counted: bool,
    /// UCT's ties are broken at random, as the official `np.random.choice(best_actions)` (false:
    /// the lowest action wins, this project's earlier rule).
    pub random_ties: bool,
}

impl Default for PlannerParams {
    fn default() -> Self {
        Self {
            simulations: 25,
            exploration: 1.0,
            discount: 0.99,
            rollout_steps: 100,
            temperature: 0.01,
            visit_epsilon: 1e-3,
            unvisited_value: 1.0,
            root_counted: true,
            random_ties: true,
        }
    }
}

impl crate::params::Parameters for PlannerParams {
    fn params_schema(&self) -> serde_json::Value {
        schemars::schema_for!(PlannerParams).to_value()
    }

    fn validate(&self) -> Result<(), String> {
        use crate::params::check_range;
        check_range("simulations", f64::from(self.simulations), 1.0..=10_000.0)?;
        check_range("exploration", self.exploration, 0.0..=100.0)?;
        check_range("discount", self.discount, 0.0..=1.0)?;
        check_range("rollout_steps", f64::from(self.rollout_steps), 0.0..=10_000.0)?;
        check_range("temperature", self.temperature, 1e-6..=100.0)?;
        check_range("visit_epsilon", self.visit_epsilon, 1e-9..=10.0)?;
        check_range("unvisited_value", self.unvisited_value, -1e6..=1e6)
    }
}

/// A model the planner steps: from a state and an action, the next state, the reward and whether
/// the episode ended.
pub trait Model {
    type State: Clone;
    fn actions(&self) -> usize;
    fn step(&self, state: &Self::State, action: usize, rng: &mut RunRng) -> (Self::State, f64, bool);
    /// What tells two states apart (their observation).
    fn key(&self, state: &Self::State) -> u64;
}

/// An observation's digest (a float's bits, so states equal to the last bit share a node).
pub fn obs_key(obs: &GymObs) -> u64 {
    let mut digest = fnv::FnvHasher::default();
    match obs {
        GymObs::Discrete(s) => s.hash(&mut digest),
        GymObs::Triple(t) => t.hash(&mut digest),
        GymObs::Floats(v) => v.iter().for_each(|x| x.to_bits().hash(&mut digest)),
    }
    digest.finish()
}

/// The true environment as its own model: the oracle, which plans on a copy of the real state.
/// With `foresight` the copy carries the real environment's random stream, as the official
/// `run_real_eval_mcts` plans on the real environment whose `save_state_dict` deep-copies
/// `np_random`: every simulation from a state draws the card the real step from it will draw.
/// Without, the oracle draws its own cards (only Blackjack draws any).
pub struct TrueEnvironment {
    pub actions: usize,
    pub foresight: bool,
}

impl Model for TrueEnvironment {
    /// The environment and, with foresight, its own random stream.
    type State = (GymEnv, RunRng);

    fn actions(&self) -> usize {
        self.actions
    }

    fn step(&self, state: &Self::State, action: usize, rng: &mut RunRng) -> (Self::State, f64, bool) {
        let (mut next, mut stream) = state.clone();
        let step = next.step(action, if self.foresight { &mut stream } else { rng });
        ((next, stream), step.reward, step.terminated)
    }

    fn key(&self, state: &Self::State) -> u64 {
        obs_key(&state.0.obs())
    }
}

/// Where the planner's own choices come from (its ties, rollouts and final draw), and the stream a
/// model steps with. A run's [`RunRng`] is both.
pub trait PlannerDraws {
    /// An index below `n`.
    fn below(&mut self, n: usize) -> usize;
    /// A float in [0, 1).
    fn unit(&mut self) -> f64;
    /// The stream a model steps with (Blackjack's cards, a tabulated model's outcomes).
    fn model_rng(&mut self) -> &mut RunRng;
}

impl PlannerDraws for RunRng {
    fn below(&mut self, n: usize) -> usize {
        self.random_range(0..n)
    }

    fn unit(&mut self) -> f64 {
        self.random()
    }

    fn model_rng(&mut self) -> &mut RunRng {
        self
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014) for the planner's choices, a stream the harness's planner
/// (`static/python/harness/planner.py`, a plan request's `splitmix64`) draws too: with it, both
/// planners make the same plans, which a test in each host holds them to. The model steps with
/// `model`.
pub struct SplitMix64 {
    state: u64,
    pub model: RunRng,
}

impl SplitMix64 {
    pub fn new(seed: u64, model: RunRng) -> Self {
        Self { state: seed, model }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl PlannerDraws for SplitMix64 {
    /// By remainder: a bias of at most n / 2⁶⁴, and the same in Python.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * 2f64.powi(-53)
    }

    fn model_rng(&mut self) -> &mut RunRng {
        &mut self.model
    }
}

struct StateNode<S> {
    state: S,
    terminal: bool,
    visits: u32,
    actions: Vec<ActionNode>,
}

#[derive(Default)]
struct ActionNode {
    visits: u32,
    value_sum: f64,
    /// The states the model gave, by key, as indices into the tree.
    children: HashMap<u64, usize>,
}

impl ActionNode {
    fn q(&self) -> Option<f64> {
        (self.visits > 0).then(|| self.value_sum / f64::from(self.visits))
    }
}

/// One planning step: the action to take in `state`, after `params.simulations` simulations.
pub fn plan<M: Model>(model: &M, state: &M::State, params: &PlannerParams, rng: &mut impl PlannerDraws) -> usize {
    let mut tree = vec![StateNode {
        state: state.clone(),
        terminal: false,
        visits: u32::from(params.root_counted),
        actions: (0..model.actions()).map(|_| ActionNode::default()).collect(),
    }];
    for _ in 0..params.simulations {
        simulate(model, &mut tree, 0, params, rng);
    }
    // Softmax of Q / T; an unvisited action counts Q = 0. Shifted by the maximum for stability.
    let qs: Vec<f64> = tree[0].actions.iter().map(|a| a.q().unwrap_or(0.0) / params.temperature).collect();
    let top = qs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = qs.iter().map(|q| (q - top).exp()).collect();
    let mut draw = rng.unit() * weights.iter().sum::<f64>();
    for (action, w) in weights.iter().enumerate() {
        if draw < *w {
            return action;
        }
        draw -= w;
    }
    weights.len() - 1
}

fn uct<S>(node: &StateNode<S>, params: &PlannerParams, rng: &mut impl PlannerDraws) -> usize {
    let ln_n = f64::from(node.visits.max(1)).ln();
    let scores: Vec<f64> = node
        .actions
        .iter()
        .map(|a| {
            let q = a.q().unwrap_or(params.unvisited_value);
            q + params.exploration * (ln_n / (f64::from(a.visits) + params.visit_epsilon)).sqrt()
        })
        .collect();
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let best: Vec<usize> = (0..scores.len()).filter(|&a| scores[a] == top).collect();
    // A draw only for a tie: one action is what the official `np.random.choice` of one returns.
    if params.random_ties && best.len() > 1 { best[rng.below(best.len())] } else { best[0] }
}

/// One simulation from node `at`; its return, `r + γ·v`.
fn simulate<M: Model>(
    model: &M,
    tree: &mut Vec<StateNode<M::State>>,
    at: usize,
    params: &PlannerParams,
    rng: &mut impl PlannerDraws,
) -> f64 {
    let action = uct(&tree[at], params, rng);
    let (next, reward, done) = model.step(&tree[at].state, action, rng.model_rng());
    let key = model.key(&next);
    let value = match tree[at].actions[action].children.get(&key).copied() {
        Some(child) if tree[child].terminal => 0.0,
        Some(child) => simulate(model, tree, child, params, rng),
        None => {
            let value = if done { 0.0 } else { rollout(model, &next, params, rng) };
            let actions = (0..model.actions()).map(|_| ActionNode::default()).collect();
            tree.push(StateNode { state: next, terminal: done, visits: 1, actions });
            let child = tree.len() - 1;
            tree[at].actions[action].children.insert(key, child);
            value
        }
    };
    let total = reward + params.discount * value;
    let node = &mut tree[at];
    node.visits += 1;
    node.actions[action].visits += 1;
    node.actions[action].value_sum += total;
    total
}

/// A uniformly random rollout's discounted return.
fn rollout<M: Model>(model: &M, state: &M::State, params: &PlannerParams, rng: &mut impl PlannerDraws) -> f64 {
    let (mut state, mut total, mut weight) = (state.clone(), 0.0, 1.0);
    for _ in 0..params.rollout_steps {
        let action = rng.below(model.actions());
        let (next, reward, done) = model.step(&state, action, rng.model_rng());
        total += weight * reward;
        weight *= params.discount;
        if done {
            break;
        }
        state = next;
    }
    total
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    /// A corridor of 5 cells: action 1 moves right, 0 left; reaching cell 4 pays 10 and ends.
    struct Corridor;

    impl Model for Corridor {
        type State = i64;

        fn actions(&self) -> usize {
            2
        }

        fn step(&self, state: &i64, action: usize, _rng: &mut RunRng) -> (i64, f64, bool) {
            let next = if action == 1 { state + 1 } else { (state - 1).max(0) };
            (next, if next == 4 { 10.0 } else { 0.0 }, next == 4)
        }

        fn key(&self, state: &i64) -> u64 {
            *state as u64
        }
    }

    #[test]
    fn the_planner_walks_the_corridor_to_the_reward() {
        let mut rng = RunRng::seed_from_u64(3);
        let params = PlannerParams::default();
        // Next to the reward, right is worth 10 and left at most 0.99² · 10: always right.
        assert!((0..50).all(|_| plan(&Corridor, &3, &params, &mut rng) == 1));
        // Farther off, 25 random rollouts tell the two apart less surely, but mostly.
        let rights: usize = (0..3)
            .flat_map(|start| (0..50).map(move |_| start))
            .map(|start| plan(&Corridor, &start, &params, &mut rng))
            .sum();
        assert!(rights >= 110, "{rights} of 150 plans go right");
    }

    fn root<S>(state: S, actions: usize, params: &PlannerParams) -> Vec<StateNode<S>> {
        let actions = (0..actions).map(|_| ActionNode::default()).collect();
        vec![StateNode { state, terminal: false, visits: u32::from(params.root_counted), actions }]
    }

    #[test]
    fn one_simulation_backs_up_the_reward_and_the_rollout_by_hand() {
        // With ties to the first (the earlier rule): from cell 3 the first simulation tries action
        // 0: to cell 2, reward 0, then a rollout; the second tries action 1: cell 4, reward 10,
        // terminal (value 0).
        let params = PlannerParams { simulations: 2, rollout_steps: 0, random_ties: false, ..PlannerParams::default() };
        let mut tree = root(3, 2, &params);
        let mut rng = RunRng::seed_from_u64(0);
        assert_eq!(simulate(&Corridor, &mut tree, 0, &params, &mut rng), 0.0);
        assert_eq!(simulate(&Corridor, &mut tree, 0, &params, &mut rng), 10.0);
        assert_eq!((tree[0].actions[0].q(), tree[0].actions[1].q()), (Some(0.0), Some(10.0)));
        // A third goes right again (Q 10 beats 0 plus the same exploration) and finds the terminal child.
        assert_eq!(simulate(&Corridor, &mut tree, 0, &params, &mut rng), 10.0);
        assert_eq!((tree[0].visits, tree.len()), (4, 3), "the root's first visit is counted before any simulation");
    }

    /// Two actions that each pay 2 and end the episode.
    struct TwoDoors;

    impl Model for TwoDoors {
        type State = u8;

        fn actions(&self) -> usize {
            2
        }

        fn step(&self, _: &u8, action: usize, _rng: &mut RunRng) -> (u8, f64, bool) {
            (action as u8 + 1, 2.0, true)
        }

        fn key(&self, state: &u8) -> u64 {
            u64::from(*state)
        }
    }

    #[test]
    fn the_root_counted_before_its_first_simulation_tries_the_other_door_second() {
        // After one simulation the tried door has Q 2 > the unvisited value 1. By hand, official
        // rule: N = 2, so the tried door scores 2 + √(ln 2 / 1.001) = 2.83 and the other
        // 1 + √(ln 2 / 0.001) = 27.3: the second simulation opens the other door. Earlier rule:
        // N = 1, ln 1 = 0, so 2 beats 1 and the same door is opened again.
        for root_counted in [true, false] {
            let params = PlannerParams { rollout_steps: 0, root_counted, ..PlannerParams::default() };
            let mut tree = root(0, 2, &params);
            let mut rng = RunRng::seed_from_u64(1);
            simulate(&TwoDoors, &mut tree, 0, &params, &mut rng);
            simulate(&TwoDoors, &mut tree, 0, &params, &mut rng);
            let visits = [tree[0].actions[0].visits, tree[0].actions[1].visits];
            if root_counted {
                assert_eq!(visits, [1, 1]);
            } else {
                assert!(visits == [2, 0] || visits == [0, 2], "{visits:?}");
            }
        }
    }

    #[test]
    fn ties_are_broken_at_random_or_to_the_first_action() {
        // A fresh root's actions all tie: the first simulation's door.
        let first_door = |random_ties: bool, seed: u64| {
            let params = PlannerParams { rollout_steps: 0, random_ties, ..PlannerParams::default() };
            let mut tree = root(0, 2, &params);
            simulate(&TwoDoors, &mut tree, 0, &params, &mut RunRng::seed_from_u64(seed));
            usize::from(tree[0].actions[1].visits == 1)
        };
        let opened: usize = (0..200).map(|seed| first_door(true, seed)).sum();
        assert!((70..130).contains(&opened), "the second door {opened} times in 200");
        assert!((0..200).all(|seed| first_door(false, seed) == 0));
    }

    #[test]
    fn an_oracle_with_foresight_draws_the_card_the_real_step_will_draw() {
        use crate::gym::GymId;
        let mut env_rng = RunRng::seed_from_u64(7);
        let env = GymId::Blackjack.make(&mut env_rng);
        let mut real = env.clone();
        let real_step = real.step(1, &mut env_rng.clone());
        let mut planner_rng = RunRng::seed_from_u64(99);
        for foresight in [true, false] {
            let oracle = TrueEnvironment { actions: 2, foresight };
            let hits: Vec<GymObs> =
                (0..20).map(|_| oracle.step(&(env.clone(), env_rng.clone()), 1, &mut planner_rng).0.0.obs()).collect();
            if foresight {
                assert!(hits.iter().all(|obs| *obs == real_step.obs), "every hit draws the real card");
            } else {
                assert!(hits.iter().any(|obs| *obs != real_step.obs), "its own cards: {hits:?}");
            }
        }
    }
}
