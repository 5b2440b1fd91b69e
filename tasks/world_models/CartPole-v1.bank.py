#| slot constants
import math


class Environment:
    def __init__(self):
        self.gravity = 9.8
        self.mass_cart = 1.0
        self.mass_pole = 0.1
        self.total_mass = self.mass_cart + self.mass_pole
        self.half_length = 0.5
        self.pole_moment = self.mass_pole * self.half_length
        self.force_mag = 10.0
        self.tau = 0.02
        self.theta_limit = 12 * 2 * math.pi / 360
        self.x_limit = 2.4
        self.state = [0.0, 0.0, 0.0, 0.0]
#| logic 0.5 wrong=next_state the pole weighs as much as the cart
import math


class Environment:
    def __init__(self):
        self.gravity = 9.8
        self.mass_cart = 1.0
        self.mass_pole = 1.0
        self.total_mass = self.mass_cart + self.mass_pole
        self.half_length = 0.5
        self.pole_moment = self.mass_pole * self.half_length
        self.force_mag = 10.0
        self.tau = 0.02
        self.theta_limit = 12 * 2 * math.pi / 360
        self.x_limit = 2.4
        self.state = [0.0, 0.0, 0.0, 0.0]
#| logic wrong=done the angle limit in degrees instead of radians
import math


class Environment:
    def __init__(self):
        self.gravity = 9.8
        self.mass_cart = 1.0
        self.mass_pole = 0.1
        self.total_mass = self.mass_cart + self.mass_pole
        self.half_length = 0.5
        self.pole_moment = self.mass_pole * self.half_length
        self.force_mag = 10.0
        self.tau = 0.02
        self.theta_limit = 12
        self.x_limit = 2.4
        self.state = [0.0, 0.0, 0.0, 0.0]
#| crash math is not imported
class Environment:
    def __init__(self):
        self.gravity = 9.8
        self.mass_cart = 1.0
        self.mass_pole = 0.1
        self.total_mass = self.mass_cart + self.mass_pole
        self.half_length = 0.5
        self.pole_moment = self.mass_pole * self.half_length
        self.force_mag = 10.0
        self.tau = 0.02
        self.theta_limit = 12 * 2 * 3.141592653589793 / 360
        self.x_limit = 2.4
        self.state = [0.0, 0.0, 0.0, 0.0]
#| slot set_state

    def set_state(self, state):
        self.state = [float(value) for value in state]
#| syntax

    def set_state(self, state):
        self.state = [float(value) for value in state
#| slot force

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
#| logic wrong=next_state the push goes the wrong way

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = -self.force_mag if action == 1 else self.force_mag
#| slot accelerations
        cos_theta, sin_theta = math.cos(theta), math.sin(theta)
        temp = (force + self.pole_moment * theta_dot**2 * sin_theta) / self.total_mass
        theta_acc = (self.gravity * sin_theta - cos_theta * temp) / (
            self.half_length * (4.0 / 3.0 - self.mass_pole * cos_theta**2 / self.total_mass)
        )
        x_acc = temp - self.pole_moment * theta_acc * cos_theta / self.total_mass
#| logic 0.5 wrong=next_state the cart's acceleration leaves out the pole's swing
        cos_theta, sin_theta = math.cos(theta), math.sin(theta)
        temp = (force + self.pole_moment * theta_dot**2 * sin_theta) / self.total_mass
        theta_acc = (self.gravity * sin_theta - cos_theta * temp) / (
            self.half_length * (4.0 / 3.0 - self.mass_pole * cos_theta**2 / self.total_mass)
        )
        x_acc = temp
#| syntax
        cos_theta, sin_theta = math.cos(theta), math.sin(theta)
        temp = (force + self.pole_moment * theta_dot**2 * sin_theta) / self.total_mass
        theta_acc = (self.gravity * sin_theta - cos_theta * temp) / (
            self.half_length * (4.0 / 3.0 - self.mass_pole * cos_theta**2 / self.total_mass)
        x_acc = temp - self.pole_moment * theta_acc * cos_theta / self.total_mass
#| slot integration
        x = x + self.tau * x_dot
        x_dot = x_dot + self.tau * x_acc
        theta = theta + self.tau * theta_dot
        theta_dot = theta_dot + self.tau * theta_acc
        self.state = [x, x_dot, theta, theta_dot]
#| logic 0.5 wrong=next_state semi-implicit Euler: positions from the new velocities
        x_dot = x_dot + self.tau * x_acc
        x = x + self.tau * x_dot
        theta_dot = theta_dot + self.tau * theta_acc
        theta = theta + self.tau * theta_dot
        self.state = [x, x_dot, theta, theta_dot]
#| slot termination
        done = abs(x) > self.x_limit or abs(theta) > self.theta_limit
        return list(self.state), 1.0, done
#| logic wrong=done the episode ends only when both limits are crossed
        done = abs(x) > self.x_limit and abs(theta) > self.theta_limit
        return list(self.state), 1.0, done
#| logic wrong=reward the last step earns nothing
        done = abs(x) > self.x_limit or abs(theta) > self.theta_limit
        return list(self.state), 0.0 if done else 1.0, done
