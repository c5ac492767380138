import { VirtualTimeScheduler } from 'rxjs';
import { ListFreshness } from '../../lib/client/list-freshness';

describe('ListFreshness', () => {
  const at = (scheduler: VirtualTimeScheduler, ms: number) => {
    scheduler.schedule(() => undefined, ms - scheduler.now());
    scheduler.flush();
  };

  it('[caching.pages] keeps a listing fresh until its first page goes stale, each page counted from its arrival', () => {
    const scheduler = new VirtualTimeScheduler();
    const freshness = new ListFreshness(scheduler);
    expect(freshness.until('tools/list')).toBe(0);
    const listing = freshness.track('tools/list');
    listing.page({ ttlMs: 5000 });
    at(scheduler, 1000);
    listing.page({ ttlMs: 1000 });
    listing.complete();
    expect(freshness.until('tools/list')).toBe(2000);
  });

  it.each([[{}], [{ ttlMs: -5 }], [{ ttlMs: 'soon' }]])('[caching.ttl-default] takes %j for stale at once', (page) => {
    const freshness = new ListFreshness(new VirtualTimeScheduler());
    const listing = freshness.track('prompts/list');
    listing.page(page as Record<string, unknown>);
    listing.complete();
    expect(freshness.until('prompts/list')).toBe(0);
  });

  it('[caching.notification] makes the lists a change notification concerns stale, even one still being fetched', () => {
    const freshness = new ListFreshness(new VirtualTimeScheduler());
    const done = freshness.track('resources/list');
    done.page({ ttlMs: 60_000 });
    done.complete();
    const inFlight = freshness.track('resources/templates/list');
    inFlight.page({ ttlMs: 60_000 });
    freshness.onNotification('notifications/resources/list_changed');
    inFlight.complete();
    expect(freshness.until('resources/list')).toBe(0);
    expect(freshness.until('resources/templates/list')).toBe(0);
    freshness.onNotification('notifications/tools/list_changed');
    const tools = freshness.track('tools/list');
    tools.page({ ttlMs: 10 });
    tools.complete();
    expect(freshness.until('tools/list')).toBe(10);
  });
});
