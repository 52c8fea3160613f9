import { describe, expect, it } from 'vitest';
import { describeProvider, parseInfo } from './info';

const wire = {
  name: 'Agent Hub',
  version: '1.2.3',
  mode: 'headless',
  data_dir: '/home/u/.local/share/agenthub',
  provider: { configured: true, providers: ['anthropic', 'openai'], sources: ['anthropic: env ANTHROPIC_API_KEY', 'openai: settings openai_base_url'] },
  model: 'anthropic:claude-sonnet-4-6',
  dashboard_url: 'http://127.0.0.1:8421/?token=abc',
  workspace: '/home/u/proj',
};

describe('parseInfo', () => {
  it('accepts the Go wire shape', () => {
    expect(parseInfo(wire)).toEqual(wire);
  });

  it('treats null provider lists (Go nil slices) as empty', () => {
    const info = parseInfo({ ...wire, provider: { configured: false, providers: null, sources: null } });
    expect(info.provider).toEqual({ configured: false, providers: [], sources: [] });
  });

  it('names the bad field', () => {
    expect(() => parseInfo({ ...wire, data_dir: 3 })).toThrow('"data_dir"');
    expect(() => parseInfo({ ...wire, mode: 'tv' })).toThrow('unknown mode');
    expect(() => parseInfo({ ...wire, provider: 'yes' })).toThrow('"provider"');
    expect(() => parseInfo([])).toThrow('not an object');
  });
});

describe('describeProvider', () => {
  it('labels providers with their source', () => {
    expect(describeProvider(parseInfo(wire).provider)).toBe(
      'Anthropic (env ANTHROPIC_API_KEY), OpenAI-compatible (settings openai_base_url)',
    );
  });
  it('says when nothing is configured', () => {
    expect(describeProvider({ configured: false, providers: [], sources: [] })).toBe('Not configured');
  });
});
