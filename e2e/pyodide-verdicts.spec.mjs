// Every verdict recorded in tasks/ must be what Pyodide says, as cli/tests/python_verdicts.rs checks
// against native python3: the same Pyodide build the page serves (build/pyodide), the same harness,
// run in Node.
import { test, expect } from '@playwright/test';
import { read, harnessInNode } from './helpers.mjs';

test('the recorded verdicts of every bundled program equal Pyodide’s', async () => {
  const { handle } = await harnessInNode();
  const verdictOf = (code, tests) => {
    const v = JSON.parse(handle(JSON.stringify({ code, tests })));
    return { passed: v.passed, number_passed: v.number_passed, total: v.total };
  };

  const programs = [];
  for (const task of JSON.parse(await read('tasks/executive.json')).tasks) {
    for (const [variant, code] of Object.entries(task.code)) {
      programs.push([`${task.task_id} / ${variant}`, code, task.tests, task.verdicts[variant]]);
    }
  }
  const planner = JSON.parse(await read('tasks/planner.json'));
  programs.push([`${planner.task_id} / integrated`, planner.integrated_code, planner.tests, planner.integrated_verdict]);
  for (const subtask of planner.subtasks) programs.push([subtask.name, subtask.code, subtask.tests, subtask.verdict]);

  for (const [label, code, tests, recorded] of programs) {
    expect(verdictOf(code, tests), label).toEqual(recorded);
  }
  expect(programs.length).toBe(14);
});
