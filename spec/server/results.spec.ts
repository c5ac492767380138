import { textResult } from '../../lib/server/results';

describe('textResult', () => {
  it('makes a one-text-block result, marked as an error when asked', () => {
    expect(textResult('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(textResult('no', { isError: true })).toEqual({ content: [{ type: 'text', text: 'no' }], isError: true });
  });
});
