//! Episode records in a compact binary form: postcard rows of their fields in order, about 52 bytes
//! an orchestrator episode against about 230 as JSON objects. The worker sends records to the page
//! this way (as base64 inside its JSON messages), and the page stores the same rows: a tabular run
//! trains faster than the page could decode JSON objects, and a million-episode run fits its storage.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::run::{EpisodeOutcome, EpisodeRecord};

/// One record as a row (the JSON shape flattens the outcome into the record, which postcard, a
/// format without field names, cannot read back).
type Row = (u32, EpisodeOutcome, Option<f64>, Option<f64>, f64, f64);

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordRows(Vec<u8>);

impl RecordRows {
    pub fn encode(records: &[EpisodeRecord]) -> Self {
        let rows: Vec<_> = records
            .iter()
            .map(|r| (r.episode, &r.outcome, r.epsilon, r.loss, r.success_last100, r.mean_return_last100))
            .collect();
        Self(postcard::to_allocvec(&rows).expect("records serialise"))
    }

    pub fn decode(&self) -> Result<Vec<EpisodeRecord>, String> {
        let rows: Vec<Row> = postcard::from_bytes(&self.0).map_err(|e| format!("episode records unreadable ({e})"))?;
        Ok(rows
            .into_iter()
            .map(|(episode, outcome, epsilon, loss, success_last100, mean_return_last100)| EpisodeRecord {
                episode,
                outcome,
                epsilon,
                loss,
                success_last100,
                mean_return_last100,
            })
            .collect())
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Serialize for RecordRows {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&BASE64.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for RecordRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        BASE64.decode(text).map(Self).map_err(|e| serde::de::Error::custom(format!("records are not base64 ({e})")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentId, EnvId, Run, RunSpec};

    #[test]
    fn rows_round_trip_the_records_compactly() {
        let spec = RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 3, 2_000);
        let records: Vec<EpisodeRecord> = Run::new(spec).unwrap().collect();
        let rows = RecordRows::encode(&records[1_000..]);
        assert_eq!(rows.decode().unwrap(), records[1_000..]);
        // About 52 bytes an orchestrator episode (its five f64s take 41), against about 230 as JSON.
        let json = serde_json::to_string(&records[1_000..]).unwrap();
        assert!(rows.bytes().len() < 55 * 1_000, "{} bytes", rows.bytes().len());
        assert!(json.len() > 4 * rows.bytes().len(), "{} bytes of JSON, {} of rows", json.len(), rows.bytes().len());
        let through_json: RecordRows = serde_json::from_str(&serde_json::to_string(&rows).unwrap()).unwrap();
        assert_eq!(through_json, rows);
        let cut = RecordRows::from_bytes(rows.bytes()[..rows.bytes().len() / 2].to_vec());
        assert!(cut.decode().unwrap_err().starts_with("episode records unreadable"));
        assert!(serde_json::from_str::<RecordRows>("\"not base64!\"").unwrap_err().to_string().contains("not base64"));
    }
}
