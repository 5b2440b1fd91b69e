#| slot constants
import math


class Environment:
    def __init__(self):
        self.dt = 0.2
        self.length_1 = 1.0
        self.mass_1 = 1.0
        self.mass_2 = 1.0
        self.com_1 = 0.5
        self.com_2 = 0.5
        self.moment = 1.0
        self.gravity = 9.8
        self.max_speed_1 = 4 * math.pi
        self.max_speed_2 = 9 * math.pi
        self.torques = [-1.0, 0.0, 1.0]
        self.state = [0.0, 0.0, 0.0, 0.0]
#| logic 0.5 wrong=next_state the torques in the wrong order
import math


class Environment:
    def __init__(self):
        self.dt = 0.2
        self.length_1 = 1.0
        self.mass_1 = 1.0
        self.mass_2 = 1.0
        self.com_1 = 0.5
        self.com_2 = 0.5
        self.moment = 1.0
        self.gravity = 9.8
        self.max_speed_1 = 4 * math.pi
        self.max_speed_2 = 9 * math.pi
        self.torques = [1.0, 0.0, -1.0]
        self.state = [0.0, 0.0, 0.0, 0.0]
#| logic 0.5 wrong=next_state,reward,done a time step of 0.1 s
import math


class Environment:
    def __init__(self):
        self.dt = 0.1
        self.length_1 = 1.0
        self.mass_1 = 1.0
        self.mass_2 = 1.0
        self.com_1 = 0.5
        self.com_2 = 0.5
        self.moment = 1.0
        self.gravity = 9.8
        self.max_speed_1 = 4 * math.pi
        self.max_speed_2 = 9 * math.pi
        self.torques = [-1.0, 0.0, 1.0]
        self.state = [0.0, 0.0, 0.0, 0.0]
#| slot set_state

    def set_state(self, state):
        cos_1, sin_1, cos_2, sin_2, speed_1, speed_2 = state
        self.state = [math.atan2(sin_1, cos_1), math.atan2(sin_2, cos_2), speed_1, speed_2]
#| logic wrong=next_state,reward,done the angles recovered from their cosines alone

    def set_state(self, state):
        cos_1, sin_1, cos_2, sin_2, speed_1, speed_2 = state
        self.state = [math.acos(cos_1), math.acos(cos_2), speed_1, speed_2]
#| crash the observation unpacked into too few names

    def set_state(self, state):
        cos_1, sin_1, cos_2, sin_2 = state
        self.state = [math.atan2(sin_1, cos_1), math.atan2(sin_2, cos_2), 0.0, 0.0]
#| slot dynamics

    def derivatives(self, s, torque):
        m1, m2, l1 = self.mass_1, self.mass_2, self.length_1
        lc1, lc2, i1, i2, g = self.com_1, self.com_2, self.moment, self.moment, self.gravity
        theta_1, theta_2, dtheta_1, dtheta_2 = s
        d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * math.cos(theta_2)) + i1 + i2
        d2 = m2 * (lc2**2 + l1 * lc2 * math.cos(theta_2)) + i2
        phi_2 = m2 * lc2 * g * math.cos(theta_1 + theta_2 - math.pi / 2)
        phi_1 = (
            -m2 * l1 * lc2 * dtheta_2**2 * math.sin(theta_2)
            - 2 * m2 * l1 * lc2 * dtheta_2 * dtheta_1 * math.sin(theta_2)
            + (m1 * lc1 + m2 * l1) * g * math.cos(theta_1 - math.pi / 2)
            + phi_2
        )
        ddtheta_2 = (torque + d2 / d1 * phi_1 - m2 * l1 * lc2 * dtheta_1**2 * math.sin(theta_2) - phi_2) / (
            m2 * lc2**2 + i2 - d2**2 / d1
        )
        ddtheta_1 = -(d2 * ddtheta_2 + phi_1) / d1
        return [dtheta_1, dtheta_2, ddtheta_1, ddtheta_2]
#| logic 0.5 wrong=next_state the NIPS paper's dynamics instead of the book's

    def derivatives(self, s, torque):
        m1, m2, l1 = self.mass_1, self.mass_2, self.length_1
        lc1, lc2, i1, i2, g = self.com_1, self.com_2, self.moment, self.moment, self.gravity
        theta_1, theta_2, dtheta_1, dtheta_2 = s
        d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * math.cos(theta_2)) + i1 + i2
        d2 = m2 * (lc2**2 + l1 * lc2 * math.cos(theta_2)) + i2
        phi_2 = m2 * lc2 * g * math.cos(theta_1 + theta_2 - math.pi / 2)
        phi_1 = (
            -m2 * l1 * lc2 * dtheta_2**2 * math.sin(theta_2)
            - 2 * m2 * l1 * lc2 * dtheta_2 * dtheta_1 * math.sin(theta_2)
            + (m1 * lc1 + m2 * l1) * g * math.cos(theta_1 - math.pi / 2)
            + phi_2
        )
        ddtheta_2 = (torque + d2 / d1 * phi_1 - phi_2) / (m2 * lc2**2 + i2 - d2**2 / d1)
        ddtheta_1 = -(d2 * ddtheta_2 + phi_1) / d1
        return [dtheta_1, dtheta_2, ddtheta_1, ddtheta_2]
#| syntax

    def derivatives(self, s, torque):
        m1, m2, l1 = self.mass_1, self.mass_2, self.length_1
        lc1, lc2, i1, i2, g = self.com_1, self.com_2, self.moment, self.moment, self.gravity
        theta_1, theta_2, dtheta_1, dtheta_2 = s
        d1 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * math.cos(theta_2)) + i1 + i2
        d2 = m2 * (lc2**2 + l1 * lc2 * math.cos(theta_2)) + i2
        phi_2 = m2 * lc2 * g * math.cos(theta_1 + theta_2 - math.pi / 2)
        phi_1 = (
            -m2 * l1 * lc2 * dtheta_2**2 * math.sin(theta_2)
            - 2 * m2 * l1 * lc2 * dtheta_2 * dtheta_1 * math.sin(theta_2)
            + (m1 * lc1 + m2 * l1) * g * math.cos(theta_1 - math.pi / 2)
            + phi_2
        ddtheta_2 = (torque + d2 / d1 * phi_1 - m2 * l1 * lc2 * dtheta_1**2 * math.sin(theta_2) - phi_2) / (
            m2 * lc2**2 + i2 - d2**2 / d1
        )
        ddtheta_1 = -(d2 * ddtheta_2 + phi_1) / d1
        return [dtheta_1, dtheta_2, ddtheta_1, ddtheta_2]
#| slot integration

    def step(self, action):
        torque = self.torques[action]
        s, dt = self.state, self.dt
        k1 = self.derivatives(s, torque)
        k2 = self.derivatives([v + dt / 2 * k for v, k in zip(s, k1)], torque)
        k3 = self.derivatives([v + dt / 2 * k for v, k in zip(s, k2)], torque)
        k4 = self.derivatives([v + dt * k for v, k in zip(s, k3)], torque)
        s = [v + dt / 6 * (a + 2 * b + 2 * c + d) for v, a, b, c, d in zip(s, k1, k2, k3, k4)]
#| logic 0.5 wrong=next_state,reward,done one Euler step instead of Runge-Kutta

    def step(self, action):
        torque = self.torques[action]
        s, dt = self.state, self.dt
        k1 = self.derivatives(s, torque)
        s = [v + dt * k for v, k in zip(s, k1)]
#| crash the torque looked up by a misspelt name

    def step(self, action):
        torque = self.torque[action]
        s, dt = self.state, self.dt
        k1 = self.derivatives(s, torque)
        k2 = self.derivatives([v + dt / 2 * k for v, k in zip(s, k1)], torque)
        k3 = self.derivatives([v + dt / 2 * k for v, k in zip(s, k2)], torque)
        k4 = self.derivatives([v + dt * k for v, k in zip(s, k3)], torque)
        s = [v + dt / 6 * (a + 2 * b + 2 * c + d) for v, a, b, c, d in zip(s, k1, k2, k3, k4)]
#| slot limits
        theta_1 = (s[0] + math.pi) % (2 * math.pi) - math.pi
        theta_2 = (s[1] + math.pi) % (2 * math.pi) - math.pi
        speed_1 = min(max(s[2], -self.max_speed_1), self.max_speed_1)
        speed_2 = min(max(s[3], -self.max_speed_2), self.max_speed_2)
        self.state = [theta_1, theta_2, speed_1, speed_2]
#| crash a misspelt attribute
        theta_1 = (s[0] + math.pi) % (2 * math.pi) - math.pi
        theta_2 = (s[1] + math.pi) % (2 * math.pi) - math.pi
        speed_1 = min(max(s[2], -self.max_speed_1), self.max_speed)
        speed_2 = min(max(s[3], -self.max_speed_2), self.max_speed_2)
        self.state = [theta_1, theta_2, speed_1, speed_2]
#| slot observation
        done = -math.cos(theta_1) - math.cos(theta_1 + theta_2) > 1.0
        observation = [math.cos(theta_1), math.sin(theta_1), math.cos(theta_2), math.sin(theta_2), speed_1, speed_2]
        return observation, 0.0 if done else -1.0, done
#| logic wrong=reward,done the free end measured from the wrong side
        done = math.cos(theta_1) + math.cos(theta_1 + theta_2) > 1.0
        observation = [math.cos(theta_1), math.sin(theta_1), math.cos(theta_2), math.sin(theta_2), speed_1, speed_2]
        return observation, 0.0 if done else -1.0, done
#| logic wrong=next_state the observation gives the angles instead of their cosines and sines
        done = -math.cos(theta_1) - math.cos(theta_1 + theta_2) > 1.0
        observation = [theta_1, theta_2, speed_1, speed_2]
        return observation, 0.0 if done else -1.0, done
