import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import type { Observable } from 'rxjs';
import { MessageEncodingError } from '../../lib/jsonrpc/errors';
import type { JsonRpcMessage } from '../../lib/jsonrpc/message';
import { notification, request, resultResponse } from '../../lib/jsonrpc/message';
import { MalformedFrame } from '../../lib/transport/transport';
import type { InboundFrame, Transport, TransportClose } from '../../lib/transport/transport';

/** Two connected transports made for one test, and how to dispose of them. */
export interface TransportPair {
  readonly client: Transport;
  readonly server: Transport;
  /** Releases everything the pair holds (processes, sockets, servers); called after each test. */
  cleanup(): Promise<void>;
  /**
   * For transports with text framing: writes raw text (already framed, newline included) onto the
   * channel towards one side, bypassing `send`. Supply the directions the harness can reach.
   */
  readonly injectRaw?: {
    readonly toClient?: (text: string) => void;
    readonly toServer?: (text: string) => void;
  };
}

/** What the suite may expect of a transport beyond the common contract. */
export interface TransportContractOptions {
  /** The transport frames text, so a frame can fail to parse (run the MalformedFrame tests). */
  readonly textFraming?: boolean;
  /**
   * The transport spreads messages over several channels (one HTTP request per message, several
   * SSE streams), so it keeps order only within a channel: the ordering tests then check that
   * every message arrives exactly once, in any order.
   */
  readonly unordered?: boolean;
  /** Whether the transport writes messages as JSON (all but the in-memory pair): default true. */
  readonly encodes?: boolean;
}

const byJson = (frames: readonly unknown[]): string[] => frames.map((frame) => JSON.stringify(frame)).sort();

/** Resolves with the next `count` frames. */
export function nextFrames(incoming$: Observable<InboundFrame>, count: number): Promise<InboundFrame[]> {
  return firstValueFrom(incoming$.pipe(take(count), toArray()));
}

const messages = (count: number, prefix: string): JsonRpcMessage[] =>
  Array.from({ length: count }, (_, i) => request(i, `${prefix}/${i}`, { i }));

/**
 * The behaviour every transport shares, as one jest suite: ordering both ways, batches, bursts,
 * large messages, malformed frames (with text framing), buffering before subscription, closing
 * from either side, and sends after close. Call it at the top level of a spec file.
 */
export function describeTransportContract(
  name: string,
  makePair: () => Promise<TransportPair>,
  options: TransportContractOptions = {},
): void {
  describe(`${name} (transport contract)`, () => {
    let pair: TransportPair | undefined;
    const open = async (): Promise<TransportPair> => {
      pair = await makePair();
      return pair;
    };
    afterEach(async () => {
      await pair?.cleanup();
      pair = undefined;
    });

    it('delivers messages both ways, in order', async () => {
      const { client, server } = await open();
      const atServer = nextFrames(server.incoming$, 3);
      const atClient = nextFrames(client.incoming$, 3);
      const toServer = [request(1, 'a'), notification('b', { x: 1 }), request('three', 'c')];
      const toClient = [resultResponse(1, { ok: true }), notification('d'), resultResponse('three', {})];
      for (const message of toServer) client.send(message);
      for (const message of toClient) server.send(message);
      if (options.unordered) {
        expect(byJson(await atServer)).toEqual(byJson(toServer));
        expect(byJson(await atClient)).toEqual(byJson(toClient));
        return;
      }
      expect(await atServer).toEqual(toServer);
      expect(await atClient).toEqual(toClient);
    });

    it('delivers a batch as one frame holding the array, both ways', async () => {
      const { client, server } = await open();
      const batch = [request(1, 'a'), notification('b')];
      const answer = [resultResponse(1, { value: 'é🎉' })];
      const atServer = nextFrames(server.incoming$, 1);
      client.send(batch);
      expect(await atServer).toEqual([batch]);
      const atClient = nextFrames(client.incoming$, 1);
      server.send(answer);
      expect(await atClient).toEqual([answer]);
    });

    it('delivers 200 messages sent in one burst, in order', async () => {
      const { client, server } = await open();
      const burst = messages(200, 'burst');
      const atServer = nextFrames(server.incoming$, 200);
      for (const message of burst) client.send(message);
      if (options.unordered) expect(byJson(await atServer)).toEqual(byJson(burst));
      else expect(await atServer).toEqual(burst);
      const back = messages(200, 'back');
      const atClient = nextFrames(client.incoming$, 200);
      for (const message of back) server.send(message);
      if (options.unordered) expect(byJson(await atClient)).toEqual(byJson(back));
      else expect(await atClient).toEqual(back);
    });

    if (options.encodes !== false) {
      it('refuses a message JSON cannot write with a MessageEncodingError, sends nothing of it, and goes on', async () => {
        const { client, server } = await open();
        const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown;
        expect(() => client.send(request(1, 'a', { count: BigInt(1) }))).toThrow(MessageEncodingError);
        expect(() => client.send(request(2, 'a', { deep }))).toThrow(MessageEncodingError);
        expect(() => server.send(notification('b', { deep }))).toThrow(MessageEncodingError);
        const atServer = nextFrames(server.incoming$, 1);
        const atClient = nextFrames(client.incoming$, 1);
        client.send(request(3, 'after'));
        server.send(notification('after'));
        expect(await atServer).toEqual([request(3, 'after')]);
        expect(await atClient).toEqual([notification('after')]);
      });
    }

    it('delivers a 3 MB message intact', async () => {
      const { client, server } = await open();
      const big = resultResponse(9, { blob: 'abc\u4e16\n"\u{1F389}'.repeat(300_000) });
      expect(JSON.stringify(big).length).toBeGreaterThan(3_000_000);
      const atClient = nextFrames(client.incoming$, 2);
      server.send(big);
      server.send(notification('after'));
      expect(await atClient).toEqual([big, notification('after')]);
    });

    it('holds frames that arrive before incoming$ has a subscriber', async () => {
      const { client, server } = await open();
      server.send(notification('early/1'));
      server.send(notification('early/2'));
      // Let them cross before anyone listens; real transports need real time for that.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await nextFrames(client.incoming$, 2)).toEqual([notification('early/1'), notification('early/2')]);
    });

    if (options.textFraming) {
      it('turns a frame that is not JSON into a MalformedFrame and goes on', async () => {
        const current = await open();
        const directions = [
          [current.injectRaw?.toClient, current.client, current.server],
          [current.injectRaw?.toServer, current.server, current.client],
        ] as const;
        let checked = 0;
        for (const [inject, receiver, sender] of directions) {
          if (!inject) continue;
          const frames = nextFrames(receiver.incoming$, 2);
          inject('this is {not json\n');
          sender.send(notification('still/working'));
          const [bad, good] = await frames;
          expect(bad).toBeInstanceOf(MalformedFrame);
          expect((bad as MalformedFrame).text).toBe('this is {not json');
          expect(good).toEqual(notification('still/working'));
          checked++;
        }
        expect(checked).toBeGreaterThan(0);
      });
    }

    for (const closer of ['client', 'server'] as const) {
      it(`closes both sides when the ${closer} closes: closed$ emits and incoming$ completes`, async () => {
        const current = await open();
        const { client, server } = current;
        const clientDone = lastValueFrom(client.incoming$.pipe(toArray()));
        const serverDone = lastValueFrom(server.incoming$.pipe(toArray()));
        const clientClosed = lastValueFrom(client.closed$.pipe(toArray()));
        const serverClosed = lastValueFrom(server.closed$.pipe(toArray()));
        current[closer].close();
        const [clientCloses, serverCloses] = await Promise.all([clientClosed, serverClosed]);
        await Promise.all([clientDone, serverDone]);
        expect(clientCloses).toHaveLength(1);
        expect(serverCloses).toHaveLength(1);
        expectCloseShape(clientCloses[0]);
        expectCloseShape(serverCloses[0]);
        // closed$ replays to late subscribers.
        await expect(firstValueFrom(current[closer].closed$)).resolves.toEqual(
          closer === 'client' ? clientCloses[0] : serverCloses[0],
        );
      });
    }

    it('ignores sends after close without throwing, and close is idempotent', async () => {
      const { client, server } = await open();
      const serverFrames = lastValueFrom(server.incoming$.pipe(toArray()));
      client.close();
      expect(() => client.send(request(1, 'late'))).not.toThrow();
      expect(() => client.close()).not.toThrow();
      await firstValueFrom(server.closed$);
      expect(() => server.send(notification('late'))).not.toThrow();
      expect(await serverFrames).toEqual([]);
    });
  });
}

function expectCloseShape(close: TransportClose | undefined): void {
  expect(close).toBeDefined();
  expect(typeof close?.reason).toBe('string');
  expect(close?.reason.length).toBeGreaterThan(0);
}
