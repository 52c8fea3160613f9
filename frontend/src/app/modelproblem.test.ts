import { describe, expect, it } from "vitest";
import { modelProblem } from "./SessionOptions";

describe("modelProblem (issue 34 row 9)", () => {
  it("names a mistyped provider in plain words and accepts what the hub routes", () => {
    expect(modelProblem("opnai:gpt-4.1")).toBe("“opnai” is not a provider: use anthropic or openai (e.g. anthropic:claude-sonnet-4-6 or openai:gpt-4.1).");
    expect(modelProblem("gpt-4.1")).toMatch(/^Write the model as provider:model/);
    expect(modelProblem("openai:")).toMatch(/^Write the model as provider:model/);
    expect(modelProblem("")).toBeNull();
    expect(modelProblem("openai:gpt-4.1")).toBeNull();
    expect(modelProblem(" anthropic:claude-sonnet-4-6 ")).toBeNull();
  });
});
