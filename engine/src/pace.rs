//! How fast a run trains, for people watching it learn: at full speed (a tabular run trains 5000
//! episodes in tens of milliseconds), or a number of episodes a second. The pace changes when a run
//! is shown, never what it learns: the same spec gives the same records at any pace.

use serde::{Deserialize, Serialize};

/// A run's pace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pace {
    /// As fast as the worker trains.
    #[default]
    Full,
    /// At most this many episodes a second.
    PerSecond(f64),
}

impl Pace {
    /// The paces the page offers, slowest last.
    pub const CHOICES: [Pace; 5] =
        [Pace::Full, Pace::PerSecond(1000.0), Pace::PerSecond(100.0), Pace::PerSecond(10.0), Pace::PerSecond(1.0)];

    /// Its name in the page's select.
    pub fn key(self) -> String {
        match self {
            Pace::Full => "full".to_owned(),
            Pace::PerSecond(rate) => format!("{rate}"),
        }
    }

    /// What the page calls it.
    pub fn label(self) -> String {
        match self {
            Pace::Full => "full speed".to_owned(),
            Pace::PerSecond(1.0) => "1 episode a second".to_owned(),
            Pace::PerSecond(rate) => format!("{rate} episodes a second"),
        }
    }

    /// The pace named `key`; anything else (a rate that is not positive) is refused with why.
    pub fn parse(key: &str) -> Result<Self, String> {
        if key == "full" {
            return Ok(Pace::Full);
        }
        match key.parse::<f64>() {
            Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(Pace::PerSecond(rate)),
            _ => Err(format!("a pace is 'full' or a positive number of episodes a second, not '{key}'")),
        }
    }
}

/// A run's pace with its clock: the episodes due by a time, counted from when the pace was set
/// (or the run resumed), so that a slow pace never makes up for time spent paused in a burst.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaceClock {
    pace: Pace,
    since_ms: f64,
    trained: u64,
}

impl Default for PaceClock {
    fn default() -> Self {
        Self::new(Pace::Full, 0.0)
    }
}

impl PaceClock {
    /// `pace` from `now_ms` on.
    pub fn new(pace: Pace, now_ms: f64) -> Self {
        Self { pace, since_ms: now_ms, trained: 0 }
    }

    pub fn pace(&self) -> Pace {
        self.pace
    }

    /// How many episodes may train now; `None` at full speed.
    pub fn due(&self, now_ms: f64) -> Option<u64> {
        match self.pace {
            Pace::Full => None,
            // The first episode trains at once; the next after 1/rate seconds, and so on.
            Pace::PerSecond(rate) => {
                let allowed = 1 + ((now_ms - self.since_ms).max(0.0) * rate / 1000.0).floor() as u64;
                Some(allowed.saturating_sub(self.trained))
            }
        }
    }

    /// Milliseconds until the next episode is due (0 when one is due now or at full speed).
    pub fn wait_ms(&self, now_ms: f64) -> f64 {
        match self.pace {
            Pace::Full => 0.0,
            Pace::PerSecond(rate) => (self.since_ms + self.trained as f64 * 1000.0 / rate - now_ms).max(0.0),
        }
    }

    /// Notes `episodes` more trained.
    pub fn trained(&mut self, episodes: u64) {
        self.trained += episodes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_a_second_lets_one_episode_through_every_hundred_milliseconds() {
        let mut clock = PaceClock::new(Pace::PerSecond(10.0), 1000.0);
        assert_eq!(clock.due(1000.0), Some(1));
        clock.trained(1);
        assert_eq!(clock.due(1099.0), Some(0));
        assert_eq!(clock.wait_ms(1050.0), 50.0);
        assert_eq!(clock.due(1100.0), Some(1));
        // Half a second late: the five episodes due since, no more.
        assert_eq!(clock.due(1600.0), Some(6));
        clock.trained(6);
        assert_eq!(clock.due(1600.0), Some(0));
        assert_eq!(clock.wait_ms(1600.0), 100.0);
    }

    #[test]
    fn full_speed_has_no_limit_and_no_wait() {
        let clock = PaceClock::default();
        assert_eq!(clock.due(5.0), None);
        assert_eq!(clock.wait_ms(5.0), 0.0);
    }

    #[test]
    fn paces_read_back_from_their_keys_and_bad_ones_are_named() {
        for pace in Pace::CHOICES {
            assert_eq!(Pace::parse(&pace.key()), Ok(pace));
        }
        assert_eq!(Pace::PerSecond(1.0).label(), "1 episode a second");
        assert_eq!(Pace::PerSecond(100.0).label(), "100 episodes a second");
        assert!(Pace::parse("0").unwrap_err().contains("not '0'"));
        assert!(Pace::parse("fast").is_err());
    }
}
