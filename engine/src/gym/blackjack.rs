//! Blackjack-v1 (Gymnasium 0.29.1 `toy_text/blackjack.py`) with `sab=True`, as seed 004 uses it:
//! Sutton and Barto's rules, an infinite deck (ace 1, 2–9, 10 four times), the dealer drawing to
//! 17. The observation is (player's sum, dealer's showing card, usable ace). Hit: a card, −1 and
//! the end on a bust. Stick: the dealer plays, and the comparison gives +1, 0 or −1; a natural
//! (ace and ten) wins unless the dealer has one too.
//!
//! The cards are drawn from the run's RNG, so a recorded transition cannot be replayed card for
//! card: [`Blackjack::possible`] says whether the rules allow it.

use rand::Rng;

use super::{GymObs, GymStep};
use crate::rng::RunRng;

const DECK: [i64; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10];

#[derive(Clone, Debug, PartialEq)]
pub struct Blackjack {
    pub player: Vec<i64>,
    pub dealer: Vec<i64>,
}

fn draw(rng: &mut RunRng) -> i64 {
    DECK[rng.random_range(0..DECK.len())]
}

fn usable_ace(hand: &[i64]) -> bool {
    hand.contains(&1) && hand.iter().sum::<i64>() + 10 <= 21
}

fn sum_hand(hand: &[i64]) -> i64 {
    hand.iter().sum::<i64>() + if usable_ace(hand) { 10 } else { 0 }
}

/// 0 for a bust.
fn score(hand: &[i64]) -> i64 {
    let sum = sum_hand(hand);
    if sum > 21 { 0 } else { sum }
}

fn is_natural(hand: &[i64]) -> bool {
    let mut sorted = hand.to_vec();
    sorted.sort_unstable();
    sorted == [1, 10]
}

impl Blackjack {
    pub fn reset(rng: &mut RunRng) -> Self {
        // Gymnasium deals the dealer first.
        let dealer = vec![draw(rng), draw(rng)];
        let player = vec![draw(rng), draw(rng)];
        Self { player, dealer }
    }

    /// A deal that shows `obs`: a player's hand of that sum and ace, the dealer's card and a
    /// hidden one (a ten; it only matters to a stick, whose outcome [`Self::possible`] judges).
    pub fn from_obs([sum, card, ace]: [i64; 3]) -> Result<Self, String> {
        let valid = (4..=31).contains(&sum)
            && (1..=10).contains(&card)
            && (0..=1).contains(&ace)
            && (ace == 0 || (12..=21).contains(&sum));
        if !valid {
            return Err(format!("({sum}, {card}, {ace}) is not a Blackjack observation"));
        }
        // A soft total as an ace and the rest; a hard one as one card of that value, which the
        // sums treat alike.
        let player = if ace == 1 { vec![1, sum - 11] } else { vec![sum] };
        Ok(Self { player, dealer: vec![card, 10] })
    }

    pub fn obs(&self) -> GymObs {
        GymObs::Triple([sum_hand(&self.player), self.dealer[0], i64::from(usable_ace(&self.player))])
    }

    /// Action 1 hits, 0 sticks.
    pub fn step(&mut self, action: usize, rng: &mut RunRng) -> GymStep {
        if action == 1 {
            self.player.push(draw(rng));
            let bust = sum_hand(&self.player) > 21;
            return GymStep { obs: self.obs(), reward: if bust { -1.0 } else { 0.0 }, terminated: bust };
        }
        while sum_hand(&self.dealer) < 17 {
            self.dealer.push(draw(rng));
        }
        let (player, dealer) = (score(&self.player), score(&self.dealer));
        let mut reward = f64::from(i8::from(player > dealer) - i8::from(player < dealer));
        if is_natural(&self.player) && !is_natural(&self.dealer) {
            reward = 1.0;
        }
        GymStep { obs: self.obs(), reward, terminated: true }
    }

    /// Whether the rules allow `obs` –`action`→ (`next`, `reward`, `terminated`) for some cards.
    pub fn possible(obs: [i64; 3], action: usize, next: [i64; 3], reward: f64, terminated: bool) -> bool {
        let [sum, card, ace] = obs;
        if next[1] != card {
            return false;
        }
        if action == 0 {
            // The dealer ends on 17–21 or busts (0). (A natural's +1 is among the outcomes of 21.)
            let player = if sum > 21 { 0 } else { sum };
            let outcomes =
                [0, 17, 18, 19, 20, 21].map(|dealer| f64::from(i8::from(player > dealer) - i8::from(player < dealer)));
            return next == obs && terminated && outcomes.contains(&reward);
        }
        // A hit: the hand's hard total grows by the card; an ace counts 11 while that fits.
        let hard = sum - 10 * ace;
        (1..=10).any(|drawn| {
            let hard = hard + drawn;
            let has_ace = ace == 1 || drawn == 1;
            let usable = has_ace && hard + 10 <= 21;
            let total = hard + if usable { 10 } else { 0 };
            let bust = total > 21;
            next == [total, card, i64::from(usable)] && terminated == bust && reward == if bust { -1.0 } else { 0.0 }
        })
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn deals_read_back_and_the_rules_judge_transitions() {
        for sum in 4..=21 {
            for ace in 0..=1 {
                if ace == 1 && sum < 12 {
                    continue;
                }
                let deal = Blackjack::from_obs([sum, 7, ace]).unwrap();
                assert_eq!(deal.obs(), GymObs::Triple([sum, 7, ace]), "{:?}", deal.player);
            }
        }
        // Soft 13 hits a 9: hard 13 (the ace now counts 1).
        assert!(Blackjack::possible([13, 5, 1], 1, [13, 5, 0], 0.0, false));
        assert!(!Blackjack::possible([13, 5, 1], 1, [13, 5, 1], 0.0, false));
        // Hard 15 hits a ten: bust at 25.
        assert!(Blackjack::possible([15, 5, 0], 1, [25, 5, 0], -1.0, true));
        assert!(!Blackjack::possible([15, 5, 0], 1, [25, 5, 0], 0.0, false));
        // Sticking on 21 cannot lose; on 16 it cannot tie.
        assert!(!Blackjack::possible([21, 5, 0], 0, [21, 5, 0], -1.0, true));
        assert!(Blackjack::possible([16, 5, 0], 0, [16, 5, 0], -1.0, true));
        assert!(!Blackjack::possible([16, 5, 0], 0, [16, 5, 0], 0.0, true));
        // Stepping the real thing gives possible transitions.
        let mut rng = RunRng::seed_from_u64(3);
        for _ in 0..500 {
            let mut game = Blackjack::reset(&mut rng);
            loop {
                let GymObs::Triple(before) = game.obs() else { unreachable!() };
                let action = rng.random_range(0..2);
                let step = game.step(action, &mut rng);
                let GymObs::Triple(after) = step.obs else { unreachable!() };
                assert!(
                    Blackjack::possible(before, action, after, step.reward, step.terminated),
                    "{before:?} {action} {after:?} {step:?}"
                );
                if step.terminated {
                    break;
                }
            }
        }
    }
}
