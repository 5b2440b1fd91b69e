#| slot constants
import random

CARDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
#| logic 0.5 wrong=next_state,reward a deck where every card value is equally likely
import random

CARDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
#| slot hand

def hand_value(cards):
    """A hand's sum, counting one ace as 11 when that does not bust it."""
    total = sum(cards)
    return total + 10 if 1 in cards and total + 10 <= 21 else total
#| logic an ace always counts 11

def hand_value(cards):
    """A hand's sum, counting one ace as 11 when that does not bust it."""
    total = sum(cards)
    return total + 10 if 1 in cards else total
#| syntax

def hand_value(cards):
    """A hand's sum, counting one ace as 11 when that does not bust it."""
    total = sum(cards)
    return total + 10 if 1 in cards and total + 10 <= 21 else
#| slot state


class Environment:
    def __init__(self):
        self.player_sum, self.dealer_card, self.usable_ace = 12, 10, 0

    def set_state(self, state):
        self.player_sum, self.dealer_card, self.usable_ace = (int(value) for value in state)
#| crash the state read as a dictionary


class Environment:
    def __init__(self):
        self.player_sum, self.dealer_card, self.usable_ace = 12, 10, 0

    def set_state(self, state):
        self.player_sum = state["player_sum"]
        self.dealer_card, self.usable_ace = state[1], state[2]
#| slot hit

    def step(self, action):
        if action == 1:
            card = random.choice(CARDS)
            hard = self.player_sum - 10 * self.usable_ace + card
            ace = self.usable_ace or card == 1
            self.usable_ace = int(ace and hard + 10 <= 21)
            self.player_sum = hard + 10 * self.usable_ace
            state = (self.player_sum, self.dealer_card, self.usable_ace)
            if self.player_sum > 21:
                return state, -1.0, True
            return state, 0.0, False
#| logic 0.5 a usable ace is never counted down to 1

    def step(self, action):
        if action == 1:
            card = random.choice(CARDS)
            self.player_sum += card
            state = (self.player_sum, self.dealer_card, self.usable_ace)
            if self.player_sum > 21:
                return state, -1.0, True
            return state, 0.0, False
#| logic wrong=done a bust does not end the episode

    def step(self, action):
        if action == 1:
            card = random.choice(CARDS)
            hard = self.player_sum - 10 * self.usable_ace + card
            ace = self.usable_ace or card == 1
            self.usable_ace = int(ace and hard + 10 <= 21)
            self.player_sum = hard + 10 * self.usable_ace
            state = (self.player_sum, self.dealer_card, self.usable_ace)
            if self.player_sum > 21:
                return state, -1.0, False
            return state, 0.0, False
#| slot stick
        dealer = [self.dealer_card, random.choice(CARDS)]
        while hand_value(dealer) < 17:
            dealer.append(random.choice(CARDS))
        dealer_score = hand_value(dealer)
        state = (self.player_sum, self.dealer_card, self.usable_ace)
        if dealer_score > 21 or self.player_sum > dealer_score:
            return state, 1.0, True
        return state, 0.0 if self.player_sum == dealer_score else -1.0, True
#| logic 0.5 wrong=next_state,reward,done the dealer stops drawing at 16
        dealer = [self.dealer_card, random.choice(CARDS)]
        while hand_value(dealer) < 16:
            dealer.append(random.choice(CARDS))
        dealer_score = hand_value(dealer)
        state = (self.player_sum, self.dealer_card, self.usable_ace)
        if dealer_score > 21 or self.player_sum > dealer_score:
            return state, 1.0, True
        return state, 0.0 if self.player_sum == dealer_score else -1.0, True
#| logic wrong=done sticking does not end the episode
        dealer = [self.dealer_card, random.choice(CARDS)]
        while hand_value(dealer) < 17:
            dealer.append(random.choice(CARDS))
        dealer_score = hand_value(dealer)
        state = (self.player_sum, self.dealer_card, self.usable_ace)
        if dealer_score > 21 or self.player_sum > dealer_score:
            return state, 1.0, False
        return state, 0.0 if self.player_sum == dealer_score else -1.0, False
