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
      const outcome = loopback.authorize(new URL('https://as.example/authorize?state=s-1'));
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

  it('answers a redirect with a wrong or missing state 400 and goes on waiting for the one with its state', async () => {
    const statuses: number[] = [];
    const loopback = await startLoopbackRedirect({
      open: async (url) => {
        const back = (query: string) => fetch(`${url.searchParams.get('redirect_uri')!}?${query}`);
        // Another local process races the browser to the port with a code of its own.
        for (const query of [
          'code=EVIL&state=GUESS',
          'code=EVIL',
          'code=EVIL&state=s-1&state=GUESS',
          'code=EVIL&state=',
        ])
          statuses.push((await back(query)).status);
        statuses.push((await back(`code=c-1&state=${url.searchParams.get('state')!}`)).status);
      },
    });
    try {
      const authorization = new URL('https://as.example/authorize');
      authorization.searchParams.set('redirect_uri', loopback.redirectUrl);
      authorization.searchParams.set('state', 's-1');
      const returned = new URL(await loopback.authorize(authorization));
      expect(Object.fromEntries(returned.searchParams)).toEqual({ code: 'c-1', state: 's-1' });
      expect(statuses).toEqual([400, 400, 400, 400, 200]);
    } finally {
      await loopback.close();
    }
  });

  it('refuses to wait for a redirect it could not tell from a forged one: no state, nothing opened', async () => {
    const open = jest.fn();
    const loopback = await startLoopbackRedirect({ open });
    try {
      await expect(loopback.authorize(new URL('https://as.example/authorize'))).rejects.toThrow(/no state/);
      expect(open).not.toHaveBeenCalled();
    } finally {
      await loopback.close();
    }
  });

  it('waits for two sign-ins at once, each resolved by its own state only', async () => {
    const loopback = await startLoopbackRedirect({ open: () => undefined });
    try {
      const first = loopback.waitFor('first-state');
      const second = loopback.waitFor('second-state');
      expect((await fetch(`${loopback.redirectUrl}?code=b&state=second-state`)).status).toBe(200);
      expect((await fetch(`${loopback.redirectUrl}?code=a&state=first-state`)).status).toBe(200);
      expect(new URL(await first).searchParams.get('code')).toBe('a');
      expect(new URL(await second).searchParams.get('code')).toBe('b');
    } finally {
      await loopback.close();
    }
  });
});
