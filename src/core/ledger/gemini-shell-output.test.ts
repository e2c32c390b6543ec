import { describe, expect, it } from 'vitest';
import { readGeminiShellOutput } from './gemini-shell-output.js';

describe("Gemini CLI's shell result", () => {
  it('gives what the command printed and its exit code, without the lines the CLI adds', () => {
    expect(readGeminiShellOutput('Output: def f():\n    return 1\nProcess Group PGID: 4242')).toEqual({
      output: 'def f():\n    return 1',
    });
    const failed =
      'Output: FAILED test_a.py::test_f\nError: Command failed\nExit Code: 1\nProcess Group PGID: 7';
    expect(readGeminiShellOutput(failed)).toEqual({ output: 'FAILED test_a.py::test_f', exitCode: 1 });
    expect(readGeminiShellOutput('Output: (empty)\nProcess Group PGID: 7')).toEqual({ output: '' });
  });

  it('is undefined for other text, even text that opens with `Output: `', () => {
    expect(readGeminiShellOutput('Output: the report\nsecond line')).toBeUndefined();
    expect(readGeminiShellOutput('total 8\nProcess Group PGID: 7')).toBeUndefined();
  });
});
