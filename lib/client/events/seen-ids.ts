/** The recent event ids a follower delivered, to drop a repeat (design sketch: `eventId` is for de-duplication). */
export class SeenIds {
  private readonly order: string[] = [];
  private readonly ids = new Set<string>();

  /** `max`: how many recent ids are remembered. */
  constructor(private readonly max = 1000) {}

  /** True the first time `eventId` is offered (among the recent ones), false for a repeat. */
  first(eventId: string): boolean {
    if (this.ids.has(eventId)) return false;
    this.ids.add(eventId);
    this.order.push(eventId);
    if (this.order.length > this.max) this.ids.delete(this.order.shift()!);
    return true;
  }
}
