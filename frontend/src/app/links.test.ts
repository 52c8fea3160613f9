// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { installLinkHandler, linkAction } from './links';

describe('links', () => {
  it('opens http, https and mailto; refuses other schemes; leaves fragments to the page', () => {
    const base = 'wails://wails/#/s/1';
    expect(linkAction('https://example.com/x', base)).toEqual({ kind: 'open', url: 'https://example.com/x' });
    expect(linkAction('http://127.0.0.1:9/', base)).toEqual({ kind: 'open', url: 'http://127.0.0.1:9/' });
    expect(linkAction('mailto:a@example.com', base)).toEqual({ kind: 'open', url: 'mailto:a@example.com' });
    expect(linkAction('#/s/2', base)).toEqual({ kind: 'page' });
    for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', '/relative', 'data:text/html,x']) {
      expect(linkAction(bad, base).kind, bad).toBe('refuse');
    }
  });

  it('intercepts clicks on anchors and hands the URL to open', async () => {
    document.body.innerHTML = '<div><a href="https://example.com/doc" target="_blank"><b>docs</b></a><a href="file:///x">f</a><a href="#/s/1">s</a></div>';
    const open = vi.fn(() => Promise.resolve());
    const notify = vi.fn();
    const uninstall = installLinkHandler(document, open, notify);
    const [web, file, frag] = Array.from(document.querySelectorAll('a'));
    const click = (el: Element) => {
      const e = new MouseEvent('click', { bubbles: true, cancelable: true });
      el.dispatchEvent(e);
      return e.defaultPrevented;
    };
    expect(click(web!.querySelector('b')!)).toBe(true);
    expect(open).toHaveBeenCalledWith('https://example.com/doc');
    expect(click(file!)).toBe(true);
    expect(open).toHaveBeenCalledTimes(1);
    expect(notify).toHaveBeenCalledWith(expect.stringContaining('not opened'));
    expect(click(frag!)).toBe(false);
    open.mockImplementationOnce(() => Promise.reject(new Error('no browser')));
    click(web!);
    await Promise.resolve();
    await Promise.resolve();
    expect(notify).toHaveBeenLastCalledWith(expect.stringContaining('no browser'));
    uninstall();
    expect(click(web!)).toBe(false);
  });
});
