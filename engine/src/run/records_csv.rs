//! The one CSV schema of episode records, written by the page's export and by `rlcg train --out`:
//! a row per episode, with the run's id, environment, agent and seed first so that the rows of
//! several runs share one file. Actions are names separated by spaces; the task is its index (the
//! JSON export names the tasks).

use super::{EpisodeRecord, RunSpec};

/// The header line.
pub const CSV_HEADER: &str = "run,env,agent,seed,episode,return,length,success,agent_calls,invalid_actions,task,\
                              epsilon,loss,success_last100,mean_return_last100,actions";

/// The rows of every run, after the header; each run is its id, its spec and its records.
pub fn records_csv<'a>(runs: impl IntoIterator<Item = (u32, &'a RunSpec, &'a [EpisodeRecord])>) -> String {
    let mut csv = String::from(CSV_HEADER);
    csv.push('\n');
    for (id, spec, records) in runs {
        let names = spec.env.id().action_names();
        for r in records {
            let o = &r.outcome;
            let actions: Vec<&str> =
                o.actions.iter().map(|&a| names.get(usize::from(a)).copied().unwrap_or("?")).collect();
            csv.push_str(&format!(
                "{id},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                spec.env.id().name(),
                spec.agent.id().name(),
                spec.seed,
                r.episode,
                o.episode_return,
                o.length,
                u8::from(o.success),
                o.agent_calls,
                o.invalid_actions,
                o.task,
                optional(r.epsilon),
                optional(r.loss),
                r.success_last100,
                r.mean_return_last100,
                actions.join(" ")
            ));
        }
    }
    csv
}

/// An absent value is an empty cell.
fn optional(x: Option<f64>) -> String {
    x.map_or_else(String::new, |x| x.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentId, EnvId, Run};

    #[test]
    fn a_row_per_episode_in_the_header_s_columns_with_named_actions() {
        let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 50);
        let records: Vec<EpisodeRecord> = Run::new(spec.clone()).unwrap().collect();
        let csv = records_csv([(7, &spec, records.as_slice())]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 51);
        assert!(lines.iter().all(|l| l.split(',').count() == 16), "{csv}");
        assert!(lines[1].starts_with("7,orchestrator,q-learning,1,0,"), "{}", lines[1]);
        let actions = lines[1].rsplit(',').next().unwrap();
        assert!(actions.split(' ').all(|a| ["planner", "coder", "tester", "debugger"].contains(&a)), "{actions}");
        assert_eq!(lines[1].split(',').nth(11), Some("0.1"), "ε, then the TD loss: {}", lines[1]);
        // An absent value is an empty cell, not a zero.
        assert_eq!((optional(None), optional(Some(0.5))), (String::new(), "0.5".to_owned()));
    }
}
