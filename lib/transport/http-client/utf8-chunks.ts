/**
 * A body's text from its chunks of UTF-8, as a streaming `TextDecoder` would give it, made without
 * one while that gives the same text: a chunk that ends on a whole character (almost every chunk
 * of a JSON-RPC answer) is read with `Buffer#toString`, which costs less than making a decoder for
 * each answer. A decoder is made, and used from then on, when a character is split between two
 * chunks or when the body starts with a byte order mark (which the decoder drops). Node only: the
 * chunks are `Buffer`s.
 */
export class Utf8Chunks {
  private decoder: InstanceType<typeof TextDecoder> | undefined;
  private started = false;

  /** The text of the next chunk (a character split at its end is kept for the next one). */
  text(chunk: Buffer): string {
    if (chunk.length === 0) return '';
    const first = !this.started;
    this.started = true;
    if (this.decoder === undefined && endsOnWholeCharacter(chunk) && !(first && startsWithByteOrderMark(chunk)))
      return chunk.toString('utf8');
    return (this.decoder ??= new TextDecoder()).decode(chunk, { stream: true });
  }

  /** What is left once the body ended: the replacement for a character cut off at its end, if any. */
  end(): string {
    return this.decoder?.decode() ?? '';
  }
}

function startsWithByteOrderMark(chunk: Buffer): boolean {
  return chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
}

/**
 * Whether the chunk's last bytes complete a character: its last byte is ASCII, or the lead byte of
 * the last sequence (at most three bytes back) is followed by as many bytes as it announces.
 * False for anything else, malformed tails included: the decoder then reads them as it would.
 */
export function endsOnWholeCharacter(chunk: Buffer): boolean {
  const last = chunk.length - 1;
  if (last < 0 || (chunk[last] as number) < 0x80) return true;
  for (let at = last; at >= 0 && at >= last - 3; at--) {
    const byte = chunk[at] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return byte < 0xf8 && length === last - at + 1;
  }
  return false;
}
