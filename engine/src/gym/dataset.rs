//! An environment's dataset as seed 004 builds it (spec §3.2): 5 trajectories of uniformly random
//! actions and 5 of a simple heuristic (each environment's `Gymnasium::heuristic_action`), each of
//! at most 100 steps, made from a seed. A dataset is a transitions file (`transitions.rs`), so it
//! exports and imports as JSON lines, and a file recorded from Gymnasium is one too.

use rand::Rng;

use super::transitions::Transition;
use super::{GymId, TimeLimit};
use crate::rng::RunRng;

/// Trajectories of each kind.
pub const TRAJECTORIES: usize = 5;
/// Steps a trajectory may take.
pub const MAX_STEPS: u32 = 100;

/// `id`'s dataset: the random trajectories first, then the heuristic ones, drawn from `rng`.
pub fn dataset(id: GymId, rng: &mut RunRng) -> Vec<Transition> {
    let mut lines = Vec::new();
    for heuristic in [false, true] {
        for _ in 0..TRAJECTORIES {
            let mut env = id.make(rng);
            let mut limit = TimeLimit::of(id);
            for t in 0..MAX_STEPS {
                let obs = env.obs();
                let action = if heuristic { env.heuristic_action() } else { rng.random_range(0..id.actions()) };
                let step = env.step(action, rng);
                let truncated = limit.step();
                lines.push(Transition {
                    env: id.name().to_owned(),
                    obs: serde_json::to_value(&obs).expect("observations serialise"),
                    action,
                    reward: step.reward,
                    next_obs: serde_json::to_value(&step.obs).expect("observations serialise"),
                    terminated: step.terminated,
                    truncated,
                    t: Some(t),
                });
                if step.terminated || truncated {
                    break;
                }
            }
        }
    }
    lines
}

/// The file of a dataset: one transition per line.
pub fn to_json_lines(transitions: &[Transition]) -> String {
    transitions.iter().map(|t| serde_json::to_string(t).expect("transitions serialise") + "\n").collect()
}

/// `id`'s transitions in a JSON-lines file (a dataset exported or recorded from Gymnasium): lines
/// of other environments are skipped, a line that is not a transition is an error naming it.
pub fn from_json_lines(id: GymId, text: &str) -> Result<Vec<Transition>, String> {
    let mut transitions = Vec::new();
    for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let transition: Transition =
            serde_json::from_str(line).map_err(|e| format!("line {}: not a transition: {e}", index + 1))?;
        if transition.env != id.name() {
            continue;
        }
        id.obs_of(&transition.obs)
            .and(id.obs_of(&transition.next_obs))
            .map_err(|e| format!("line {}: {e}", index + 1))?;
        if transition.action >= id.actions() {
            return Err(format!(
                "line {}: action {} is not one of {}'s {}",
                index + 1,
                transition.action,
                id.name(),
                id.actions()
            ));
        }
        transitions.push(transition);
    }
    if transitions.is_empty() {
        return Err(format!("the file holds no transition of {}", id.name()));
    }
    Ok(transitions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gym::transitions::check;
    use crate::rng::gym_rng;

    /// The heuristic half of a dataset, episode by episode.
    fn heuristic_episodes(lines: Vec<Transition>) -> Vec<Vec<Transition>> {
        let mut episodes: Vec<Vec<Transition>> = Vec::new();
        for line in lines {
            if line.t == Some(0) {
                episodes.push(Vec::new());
            }
            episodes.last_mut().expect("a dataset starts with an episode").push(line);
        }
        episodes.split_off(TRAJECTORIES)
    }

    #[test]
    fn datasets_have_ten_short_trajectories_replay_and_the_heuristics_reach_goals() {
        for id in GymId::ALL {
            let lines = dataset(id, &mut gym_rng(7));
            let starts = lines.iter().filter(|t| t.t == Some(0)).count();
            assert_eq!(starts, 2 * TRAJECTORIES, "{}", id.name());
            assert!(lines.iter().all(|t| t.t.unwrap() < MAX_STEPS));
            let report = check(&to_json_lines(&lines));
            assert!(report.all_match(), "{}: {:?}", id.name(), report.mismatches);
            assert_eq!(lines, dataset(id, &mut gym_rng(7)), "the same seed, the same dataset");
        }
        // CliffWalking's safe path takes 13 steps (up, 11 right, down) to the goal; every Taxi
        // delivery ends with +20.
        for safe in heuristic_episodes(dataset(GymId::CliffWalking, &mut gym_rng(1))) {
            assert_eq!(safe.len(), 13);
            assert!(safe[12].terminated && safe.iter().all(|t| t.reward == -1.0));
        }
        for delivery in heuristic_episodes(dataset(GymId::Taxi, &mut gym_rng(1))) {
            assert!(delivery.len() < 30 && delivery.last().is_some_and(|t| t.reward == 20.0 && t.terminated));
        }
    }

    #[test]
    fn a_file_reads_back_its_environments_lines_and_names_a_bad_line() {
        let lines = dataset(GymId::Taxi, &mut gym_rng(3));
        let mut file = to_json_lines(&lines);
        file.push_str(&to_json_lines(&dataset(GymId::CliffWalking, &mut gym_rng(3))));
        assert_eq!(from_json_lines(GymId::Taxi, &file).unwrap(), lines);
        let error = from_json_lines(GymId::Taxi, &format!("{file}{{\"env\": 1}}\n")).unwrap_err();
        assert!(error.starts_with(&format!("line {}: not a transition", file.lines().count() + 1)), "{error}");
        let bad_obs = file.replacen("\"obs\":", "\"obs\":\"x\",\"was\":", 1);
        assert!(from_json_lines(GymId::Taxi, &bad_obs).unwrap_err().starts_with("line 1: \"x\" is not an observation"));
        assert!(from_json_lines(GymId::Acrobot, &file).unwrap_err().contains("no transition of Acrobot-v1"));
    }
}
