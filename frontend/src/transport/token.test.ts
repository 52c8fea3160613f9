// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { httpBackend, TOKEN_REFUSED } from './backend';
import { TOKEN_KEY, takeDashboardToken, type TokenStorage } from './token';
import { UrlSigner } from '../chat/resources';

function memoryStorage(): TokenStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

function history() {
  const urls: string[] = [];
  return { urls, hist: { state: { keep: 1 }, replaceState: (_s: unknown, _t: string, url?: string | URL | null) => void urls.push(String(url)) } };
}

describe('takeDashboardToken (issue 32 row 5: no credential in a cookie)', () => {
  it('takes ?token= once: stores it for this tab and removes it from the address bar', () => {
    const storage = memoryStorage();
    const { urls, hist } = history();
    expect(takeDashboardToken({ href: 'http://127.0.0.1:8421/x?a=1&token=t0k#/s/ID' }, hist, storage)).toBe('t0k');
    expect(urls).toEqual(['/x?a=1#/s/ID']);
    expect(storage.data.get(TOKEN_KEY)).toBe('t0k');
    expect(document.cookie).toBe('');
    // A reload of the tab (the address has no token any more) finds it again.
    expect(takeDashboardToken({ href: 'http://127.0.0.1:8421/x?a=1#/s/ID' }, hist, storage)).toBe('t0k');
    expect(urls).toHaveLength(1);
  });
  it('a new ?token= replaces the stored one; no token anywhere is null', () => {
    const storage = memoryStorage();
    storage.setItem(TOKEN_KEY, 'old');
    expect(takeDashboardToken({ href: 'http://127.0.0.1:1/?token=new' }, history().hist, storage)).toBe('new');
    expect(storage.data.get(TOKEN_KEY)).toBe('new');
    expect(takeDashboardToken({ href: 'http://127.0.0.1:1/' }, history().hist, memoryStorage())).toBeNull();
  });
  it('works without storage (disabled or refusing): the token lives for this load', () => {
    const refusing: TokenStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    const { urls, hist } = history();
    expect(takeDashboardToken({ href: 'http://127.0.0.1:1/?token=t' }, hist, refusing)).toBe('t');
    expect(urls).toEqual(['/']);
    expect(takeDashboardToken({ href: 'http://127.0.0.1:1/' }, hist, refusing)).toBeNull();
    expect(takeDashboardToken({ href: 'http://127.0.0.1:1/?token=t' }, hist, null)).toBe('t');
  });
});

describe('httpBackend authenticates with the bearer token, never a cookie', () => {
  type Call = { url: string; init: RequestInit | undefined };
  function fake(answer: (url: string) => Response) {
    const calls: Call[] = [];
    const fn = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(url), init });
      return answer(String(url));
    });
    return { calls, fn: fn as unknown as typeof fetch };
  }
  const auth = (c: Call) => (c.init?.headers as Record<string, string>).Authorization;

  it('sends Authorization on info, RPC, attach, upload and signing, with credentials omitted', async () => {
    const f = fake((url) => {
      if (url.endsWith('/api/info')) return new Response(JSON.stringify({ name: 'Agent Hub', version: '1', mode: 'headless', data_dir: '/d', provider: { configured: false, providers: [], sources: [] }, model: '', workspace: '/w', dashboard_url: '' }));
      if (url.endsWith('/rpc')) return new Response(JSON.stringify({ type: 'response', requestId: 'x', ok: true, payload: {} }));
      if (url.endsWith('/signed-urls')) return new Response(JSON.stringify({ url: '/attachments/a?exp=9&sig=s', expires_at: '2030-01-01T00:00:00Z' }));
      if (url.includes('/attachments')) return new Response(JSON.stringify({ id: 'a', name: 'x.png', kind: 'image', media_type: 'image/png', bytes: 1 }), { status: 201 });
      return new Response('{}', { status: 404 });
    });
    const b = httpBackend(f.fn, '', 'tok-1');
    await b.info();
    await b.hub().listSessions().catch(() => undefined);
    await b.uploadAttachment(new File(['x'], 'x.png', { type: 'image/png' }));
    const signed = await b.signUrl!('/attachments/a');
    expect(signed).toEqual({ url: '/attachments/a?exp=9&sig=s', expiresAt: Date.parse('2030-01-01T00:00:00Z') });
    expect(f.calls.map((c) => c.url.replace(/\?.*/, ''))).toEqual(['/api/info', '/rpc', '/attachments', '/signed-urls']);
    for (const c of f.calls) {
      expect(auth(c), c.url).toBe('Bearer tok-1');
      expect(c.init?.credentials, c.url).toBe('omit');
    }
  });

  it('says how to open the dashboard when the hub refuses the token', async () => {
    const b = httpBackend(fake(() => new Response('no', { status: 401, statusText: 'Unauthorized' })).fn, '', null);
    await expect(b.info()).rejects.toThrow(TOKEN_REFUSED);
  });
});

describe('UrlSigner', () => {
  it('asks once per path while a URL is valid, and again once it expires', async () => {
    let now = 1_000_000;
    let n = 0;
    const sign = vi.fn(async (path: string) => ({ url: `${path}?sig=${++n}`, expiresAt: now + 300_000 }));
    const s = new UrlSigner(sign, () => now);
    expect(s.cached('/attachments/a')).toBeNull();
    const [u1, u2] = await Promise.all([s.url('/attachments/a'), s.url('/attachments/a')]);
    expect([u1, u2]).toEqual(['/attachments/a?sig=1', '/attachments/a?sig=1']);
    expect(sign).toHaveBeenCalledTimes(1);
    expect(s.cached('/attachments/a')).toBe(u1);
    expect(s.expired(u1)).toBe(false);
    now += 290_000; // within the margin of its expiry
    expect(s.expired(u1)).toBe(true);
    expect(await s.url('/attachments/a')).toBe('/attachments/a?sig=2');
    expect(s.expired('/elsewhere')).toBe(true);
  });
  it('a failed signing is not cached', async () => {
    const sign = vi.fn().mockRejectedValueOnce(new Error('401')).mockResolvedValue({ url: '/x?sig=1', expiresAt: Date.now() + 300_000 });
    const s = new UrlSigner(sign);
    await expect(s.url('/x')).rejects.toThrow('401');
    expect(await s.url('/x')).toBe('/x?sig=1');
  });
});
