#| slot constants
import math


class Environment:
    def __init__(self):
        self.min_position = -1.2
        self.max_position = 0.6
        self.max_speed = 0.07
        self.goal_position = 0.5
        self.force = 0.001
        self.gravity = 0.0025
        self.state = [0.0, 0.0]
#| logic 0.5 wrong=done the goal is at 0.45
import math


class Environment:
    def __init__(self):
        self.min_position = -1.2
        self.max_position = 0.6
        self.max_speed = 0.07
        self.goal_position = 0.45
        self.force = 0.001
        self.gravity = 0.0025
        self.state = [0.0, 0.0]
#| logic wrong=next_state,done the engine ten times too strong
import math


class Environment:
    def __init__(self):
        self.min_position = -1.2
        self.max_position = 0.6
        self.max_speed = 0.07
        self.goal_position = 0.5
        self.force = 0.01
        self.gravity = 0.0025
        self.state = [0.0, 0.0]
#| slot set_state

    def set_state(self, state):
        self.state = [float(state[0]), float(state[1])]
#| crash the state read as a single number

    def set_state(self, state):
        self.state = [float(state), 0.0]
#| slot velocity

    def step(self, action):
        position, velocity = self.state
        velocity += (action - 1) * self.force + math.cos(3 * position) * (-self.gravity)
        velocity = min(max(velocity, -self.max_speed), self.max_speed)
#| logic wrong=next_state,done the actions' directions swapped

    def step(self, action):
        position, velocity = self.state
        velocity += (1 - action) * self.force + math.cos(3 * position) * (-self.gravity)
        velocity = min(max(velocity, -self.max_speed), self.max_speed)
#| logic 0.5 wrong=next_state gravity pulls the wrong way

    def step(self, action):
        position, velocity = self.state
        velocity += (action - 1) * self.force + math.cos(3 * position) * self.gravity
        velocity = min(max(velocity, -self.max_speed), self.max_speed)
#| syntax

    def step(self, action):
        position, velocity = self.state
        velocity += (action - 1) * self.force + math.cos(3 * position) * (-self.gravity))
        velocity = min(max(velocity, -self.max_speed), self.max_speed)
#| slot position
        position += velocity
        position = min(max(position, self.min_position), self.max_position)
        if position == self.min_position and velocity < 0:
            velocity = 0.0
#| syntax
        position += velocity
        position = min(max(position, self.min_position), self.max_position
        if position == self.min_position and velocity < 0:
            velocity = 0.0
#| crash a misspelt attribute
        position += velocity
        position = min(max(position, self.min_pos), self.max_position)
        if position == self.min_position and velocity < 0:
            velocity = 0.0
#| slot termination
        self.state = [position, velocity]
        done = position >= self.goal_position and velocity >= 0
        return [position, velocity], -1.0, done
#| logic wrong=done the episode never ends
        self.state = [position, velocity]
        return [position, velocity], -1.0, False
#| logic wrong=reward reaching the goal earns 0
        self.state = [position, velocity]
        done = position >= self.goal_position and velocity >= 0
        return [position, velocity], 0.0 if done else -1.0, done
