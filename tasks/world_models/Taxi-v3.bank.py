#| slot map
MAP = [
    "+---------+",
    "|R: | : :G|",
    "| : | : : |",
    "| : : : : |",
    "| | : | : |",
    "|Y| : |B: |",
    "+---------+",
]
LOCATIONS = [(0, 0), (0, 4), (4, 0), (4, 3)]
#| logic 0.5 wrong=next_state the wall below G's row is missing from the map
MAP = [
    "+---------+",
    "|R: : : :G|",
    "| : | : : |",
    "| : : : : |",
    "| | : | : |",
    "|Y| : |B: |",
    "+---------+",
]
LOCATIONS = [(0, 0), (0, 4), (4, 0), (4, 3)]
#| logic wrong=next_state,reward,done the landmarks Y and B swapped
MAP = [
    "+---------+",
    "|R: | : :G|",
    "| : | : : |",
    "| : : : : |",
    "| | : | : |",
    "|Y| : |B: |",
    "+---------+",
]
LOCATIONS = [(0, 0), (0, 4), (4, 3), (4, 0)]
#| slot state

class Environment:
    def __init__(self):
        self.row, self.col, self.passenger, self.destination = 0, 0, 0, 1

    def set_state(self, state):
        state, self.destination = divmod(int(state), 4)
        state, self.passenger = divmod(state, 5)
        self.row, self.col = divmod(state, 5)
#| logic wrong=next_state,reward,done the passenger and the destination decoded in the wrong order

class Environment:
    def __init__(self):
        self.row, self.col, self.passenger, self.destination = 0, 0, 0, 1

    def set_state(self, state):
        state, self.passenger = divmod(int(state), 5)
        state, self.destination = divmod(state, 4)
        self.row, self.col = divmod(state, 5)
#| syntax

class Environment:
    def __init__(self):
        self.row, self.col, self.passenger, self.destination = 0, 0, 0, 1

    def set_state(self, state):
        state, self.destination = divmod(int(state), 4
        state, self.passenger = divmod(state, 5)
        self.row, self.col = divmod(state, 5)
#| slot moves

    def step(self, action):
        reward, done = -1, False
        if action == 0:
            self.row = min(self.row + 1, 4)
        elif action == 1:
            self.row = max(self.row - 1, 0)
        elif action == 2 and MAP[1 + self.row][2 * self.col + 2] == ":":
            self.col = min(self.col + 1, 4)
        elif action == 3 and MAP[1 + self.row][2 * self.col] == ":":
            self.col = max(self.col - 1, 0)
#| logic wrong=next_state south and north swapped

    def step(self, action):
        reward, done = -1, False
        if action == 1:
            self.row = min(self.row + 1, 4)
        elif action == 0:
            self.row = max(self.row - 1, 0)
        elif action == 2 and MAP[1 + self.row][2 * self.col + 2] == ":":
            self.col = min(self.col + 1, 4)
        elif action == 3 and MAP[1 + self.row][2 * self.col] == ":":
            self.col = max(self.col - 1, 0)
#| logic 0.5 wrong=next_state the walls are ignored

    def step(self, action):
        reward, done = -1, False
        if action == 0:
            self.row = min(self.row + 1, 4)
        elif action == 1:
            self.row = max(self.row - 1, 0)
        elif action == 2:
            self.col = min(self.col + 1, 4)
        elif action == 3:
            self.col = max(self.col - 1, 0)
#| syntax

    def step(self, action):
        reward, done = -1, False
        if action == 0:
            self.row = min(self.row + 1, 4)
        elif action == 1:
            self.row = max(self.row - 1, 0)
        elif action == 2 and MAP[1 + self.row][2 * self.col + 2] == ":"
            self.col = min(self.col + 1, 4)
        elif action == 3 and MAP[1 + self.row][2 * self.col] == ":":
            self.col = max(self.col - 1, 0)
#| slot pickup
        elif action == 4:
            if self.passenger < 4 and (self.row, self.col) == LOCATIONS[self.passenger]:
                self.passenger = 4
            else:
                reward = -10
#| logic wrong=reward a failed pickup costs only the step
        elif action == 4:
            if self.passenger < 4 and (self.row, self.col) == LOCATIONS[self.passenger]:
                self.passenger = 4
#| crash a misspelt name
        elif action == 4:
            if self.passenger < 4 and (self.row, self.col) == LOCATION[self.passenger]:
                self.passenger = 4
            else:
                reward = -10
#| slot dropoff
        elif action == 5:
            taxi = (self.row, self.col)
            if self.passenger == 4 and taxi == LOCATIONS[self.destination]:
                self.passenger = self.destination
                reward, done = 20, True
            elif self.passenger == 4 and taxi in LOCATIONS:
                self.passenger = LOCATIONS.index(taxi)
            else:
                reward = -10
#| logic 0.5 wrong=reward,done a delivery neither pays +20 nor ends the episode
        elif action == 5:
            taxi = (self.row, self.col)
            if self.passenger == 4 and taxi == LOCATIONS[self.destination]:
                self.passenger = self.destination
            elif self.passenger == 4 and taxi in LOCATIONS:
                self.passenger = LOCATIONS.index(taxi)
            else:
                reward = -10
#| logic wrong=next_state,reward,done a dropoff at the destination pays +20 with no passenger in the taxi
        elif action == 5:
            taxi = (self.row, self.col)
            if taxi == LOCATIONS[self.destination]:
                self.passenger = self.destination
                reward, done = 20, True
            elif self.passenger == 4 and taxi in LOCATIONS:
                self.passenger = LOCATIONS.index(taxi)
            else:
                reward = -10
#| slot encode
        state = ((self.row * 5 + self.col) * 5 + self.passenger) * 4 + self.destination
        return state, reward, done
#| logic wrong=next_state the state encoded with the wrong strides
        state = ((self.row * 5 + self.col) * 4 + self.passenger) * 5 + self.destination
        return state, reward, done
#| crash step returns two values
        state = ((self.row * 5 + self.col) * 5 + self.passenger) * 4 + self.destination
        return state, reward
