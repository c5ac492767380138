import { startLoopbackRedirect } from '../../lib/auth/loopback-redirect';

describe('startLoopbackRedirect', () => {
  it('hands the redirect back to the client once the browser reaches it, on a free loopback port', async () => {
    const loopback = await startLoopbackRedirect({
      // The "browser": the authorization server sends it straight back with a code.
      open: async (url) => {
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', 'c-1');
        back.searchParams.set('state', url.searchParams.get('state')!);
        const page = await fetch(back);
        expect(page.status).toBe(200);
        expect(await page.text()).toMatch(/close this window/);
      },
    });
    try {
      expect(loopback.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const authorization = new URL('https://as.example/authorize');
      authorization.searchParams.set('redirect_uri', loopback.redirectUrl);
      authorization.searchParams.set('state', 's-1');
      const returned = new URL(await loopback.authorize(authorization));
      expect(Object.fromEntries(returned.searchParams)).toEqual({ code: 'c-1', state: 's-1' });
      // Nothing is waiting any more: a stray request is not taken for a redirect.
      expect((await fetch(`${loopback.redirectUrl}?code=late`)).status).toBe(404);
    } finally {
      await loopback.close();
    }
  });

  it('gives up when nobody signs in within five minutes', async () => {
    const loopback = await startLoopbackRedirect({ open: () => undefined });
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const outcome = loopback.authorize(new URL('https://as.example/authorize'));
      const settled = jest.fn();
      outcome.catch(settled);
      await Promise.resolve();
      jest.advanceTimersByTime(299_000);
      await Promise.resolve();
      expect(settled).not.toHaveBeenCalled();
      jest.advanceTimersByTime(1_000);
      await expect(outcome).rejects.toThrow(/in time/);
    } finally {
      jest.useRealTimers();
      await loopback.close();
    }
  });
});
