import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readOptions } from '../../src/discovery/readOptions.js';

describe('readOptions', () => {
  it('rejects a non-object and unknown keys, naming them and the known ones', () => {
    assert.throws(
      () => readOptions('fooDiscovery', null, ['a']),
      /^TypeError: fooDiscovery: options must be an object, got null$/,
    );
    assert.throws(() => readOptions('fooDiscovery', [], ['a']), /options must be an object, got \[\]/);
    assert.throws(
      () => readOptions('fooDiscovery', { a: 1, filter: 2, zz: 3 }, ['a', 'b']),
      /^TypeError: fooDiscovery: unknown options "filter", "zz" \(known: a, b\)$/,
    );
  });

  it('reads each kind with its default, and names the bad value in one grammar', () => {
    const read = readOptions('fooDiscovery', { n: 3, f: 2.5, b: true, m: 'x', inf: Infinity }, [
      'n',
      'f',
      'b',
      'm',
      'inf',
      'absent',
    ]);
    assert.equal(read.integer('n', 1, 1, 10), 3);
    assert.equal(read.integer('absent', 7, 1, 10), 7);
    assert.equal(read.integer('inf', 7, 0, Infinity), Infinity);
    assert.equal(read.number('f', 1, 0, 10, true), 2.5);
    assert.equal(read.boolean('b', false), true);
    assert.equal(read.oneOf('m', ['x', 'y'], 'y'), 'x');
    assert.equal(
      read.check('m', 'a string', (v): v is string => typeof v === 'string'),
      'x',
    );
    assert.throws(
      () => read.integer('f', 1, 0, 10),
      /^TypeError: fooDiscovery: option f must be an integer from 0 to 10, got 2.5$/,
    );
    assert.throws(() => read.integer('inf', 1, 0, 10), /option inf must be an integer from 0 to 10, got Infinity/);
    assert.throws(() => read.integer('n', 1, 5, Infinity), /option n must be an integer at least 5, got 3/);
    assert.throws(
      () => read.number('f', 1, 2.5, 10, true),
      /option f must be a number above 2.5 and at most 10, got 2.5/,
    );
    assert.throws(() => read.boolean('n', true), /option n must be a boolean, got 3/);
    assert.throws(() => read.oneOf('m', ['y', 'z'], 'y'), /option m must be one of 'y', 'z', got "x"/);
    assert.throws(
      () => read.check('n', 'a directory path', (v): v is string => typeof v === 'string'),
      /option n must be a directory path, got 3/,
    );
  });
});
