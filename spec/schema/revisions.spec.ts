import {
  featuresOf,
  isModernRevision,
  isLegacyRevision,
  isSupportedRevision,
  LATEST_REVISION,
  LATEST_LEGACY_REVISION,
  MODERN_REVISIONS,
  revisionAtLeast,
  LEGACY_REVISIONS,
  SUPPORTED_REVISIONS,
} from '../../lib/schema/revisions';

describe('revisions', () => {
  it('lists the supported revisions oldest first, the latest last', () => {
    expect(SUPPORTED_REVISIONS).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    expect(LATEST_REVISION).toBe(SUPPORTED_REVISIONS.at(-1));
  });

  it('recognises supported revisions only', () => {
    expect(isSupportedRevision('2025-06-18')).toBe(true);
    expect(isSupportedRevision('2026-07-28')).toBe(true);
    expect(isSupportedRevision('2027-01-01')).toBe(false);
    expect(isSupportedRevision('latest')).toBe(false);
  });

  it('splits them into the handshake family and the modern family', () => {
    expect(LEGACY_REVISIONS).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
    expect(LATEST_LEGACY_REVISION).toBe('2025-11-25');
    expect(MODERN_REVISIONS).toEqual(['2026-07-28']);
    expect([...LEGACY_REVISIONS, ...MODERN_REVISIONS]).toEqual([...SUPPORTED_REVISIONS]);
    expect(SUPPORTED_REVISIONS.map(isModernRevision)).toEqual([false, false, false, false, true]);
    expect(SUPPORTED_REVISIONS.map(isLegacyRevision)).toEqual([true, true, true, true, false]);
    expect(isModernRevision('2027-01-01')).toBe(false);
  });

  it('orders revisions by date, including ones it does not support', () => {
    expect(revisionAtLeast('2025-06-18', '2025-03-26')).toBe(true);
    expect(revisionAtLeast('2025-03-26', '2025-03-26')).toBe(true);
    expect(revisionAtLeast('2024-11-05', '2025-03-26')).toBe(false);
    expect(revisionAtLeast('2026-07-28', '2025-11-25')).toBe(true);
    expect(revisionAtLeast('2027-01-01', '2026-07-28')).toBe(true);
  });
});

describe('featuresOf', () => {
  const flag = (name: keyof ReturnType<typeof featuresOf>) => SUPPORTED_REVISIONS.map((r) => featuresOf(r)[name]);

  it('allows batching in 2025-03-26 only', () => {
    expect(flag('batching')).toEqual([false, true, false, false, false]);
  });

  it('has the features each revision introduced', () => {
    expect(flag('audioContent')).toEqual([false, true, true, true, true]);
    expect(flag('toolAnnotations')).toEqual([false, true, true, true, true]);
    expect(flag('completionsCapability')).toEqual([false, true, true, true, true]);
    expect(flag('structuredContent')).toEqual([false, false, true, true, true]);
    expect(flag('elicitation')).toEqual([false, false, true, true, true]);
    expect(flag('resourceLinks')).toEqual([false, false, true, true, true]);
    expect(flag('completionContext')).toEqual([false, false, true, true, true]);
    expect(flag('protocolVersionHeader')).toEqual([false, false, true, true, true]);
    expect(flag('urlElicitation')).toEqual([false, false, false, true, true]);
    expect(flag('icons')).toEqual([false, false, false, true, true]);
    expect(flag('samplingTools')).toEqual([false, false, false, true, true]);
    expect(flag('elicitationEnumVariants')).toEqual([false, false, false, true, true]);
    expect(flag('clientIdMetadataDocuments')).toEqual([false, false, false, true, true]);
    expect(flag('envelopeInDefinitions')).toEqual([false, false, false, true, true]);
  });

  it('has the features 2025-11-25 alone had', () => {
    expect(flag('tasks')).toEqual([false, false, false, true, false]);
    expect(flag('ssePolling')).toEqual([false, false, false, true, false]);
    expect(flag('elicitationCompletion')).toEqual([false, false, false, true, false]);
  });

  it('has the features of the modern revision from 2026-07-28', () => {
    for (const name of [
      'modern',
      'resultType',
      'cacheableResults',
      'multiRoundTrip',
      'subscriptionsListen',
      'requestHeaders',
      'extensions',
    ] as const) {
      expect(flag(name)).toEqual([false, false, false, false, true]);
    }
  });

  it('gives the values a runtime needs', () => {
    expect(flag('resourceNotFoundCode')).toEqual([-32002, -32002, -32002, -32002, -32602]);
    expect(flag('httpTransport')).toEqual([
      'http+sse',
      'streamable-http',
      'streamable-http',
      'streamable-http',
      'streamable-http',
    ]);
    expect(flag('jsonSchemaDialect')).toEqual(['draft-07', 'draft-07', 'draft-07', '2020-12', '2020-12']);
  });

  it('returns one frozen object per revision', () => {
    expect(featuresOf('2025-06-18')).toBe(featuresOf('2025-06-18'));
    expect(Object.isFrozen(featuresOf('2025-06-18'))).toBe(true);
    expect(Object.isFrozen(featuresOf('2026-07-28'))).toBe(true);
  });
});
