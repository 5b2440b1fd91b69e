#| slot constants
class Environment:
    def __init__(self):
        self.rows = 4
        self.cols = 12
        self.start = 36
        self.goal = 47
        self.position = self.start
#| logic wrong=next_state the cliff sends the agent to the top-left corner
class Environment:
    def __init__(self):
        self.rows = 4
        self.cols = 12
        self.start = 0
        self.goal = 47
        self.position = self.start
#| syntax
class Environment:
    def __init__(self)
        self.rows = 4
        self.cols = 12
        self.start = 36
        self.goal = 47
        self.position = self.start
#| slot set_state

    def set_state(self, state):
        self.position = int(state)
#| crash the state is indexed as if it were a list

    def set_state(self, state):
        self.position = int(state[0])
#| slot moves

    def step(self, action):
        row, col = divmod(self.position, self.cols)
        if action == 0:
            row = max(row - 1, 0)
        elif action == 1:
            col = min(col + 1, self.cols - 1)
        elif action == 2:
            row = min(row + 1, self.rows - 1)
        else:
            col = max(col - 1, 0)
#| logic wrong=next_state,reward,done up and down swapped

    def step(self, action):
        row, col = divmod(self.position, self.cols)
        if action == 2:
            row = max(row - 1, 0)
        elif action == 1:
            col = min(col + 1, self.cols - 1)
        elif action == 0:
            row = min(row + 1, self.rows - 1)
        else:
            col = max(col - 1, 0)
#| logic 0.5 wrong=next_state moves are not kept inside the grid

    def step(self, action):
        row, col = divmod(self.position, self.cols)
        if action == 0:
            row = row - 1
        elif action == 1:
            col = col + 1
        elif action == 2:
            row = row + 1
        else:
            col = col - 1
#| syntax

    def step(self, action):
        row, col = divmod(self.position, self.cols)
        if action == 0:
            row = max(row - 1, 0)
        elif action == 1
            col = min(col + 1, self.cols - 1)
        elif action == 2:
            row = min(row + 1, self.rows - 1)
        else:
            col = max(col - 1, 0)
#| slot position
        self.position = row * self.cols + col
#| crash a misspelt attribute
        self.position = row * self.columns + col
#| slot cliff
        if row == self.rows - 1 and 0 < col < self.cols - 1:
            self.position = self.start
            return self.position, -100, False
#| logic 0.5 wrong=next_state the cliff does not send the agent back to the start
        if row == self.rows - 1 and 0 < col < self.cols - 1:
            return self.position, -100, False
#| logic wrong=done the cliff ends the episode
        if row == self.rows - 1 and 0 < col < self.cols - 1:
            self.position = self.start
            return self.position, -100, True
#| slot goal
        return self.position, -1, self.position == self.goal
#| logic wrong=done the goal does not end the episode
        return self.position, -1, False
#| logic 0.5 wrong=reward reaching the goal is rewarded
        return self.position, 0 if self.position == self.goal else -1, self.position == self.goal
