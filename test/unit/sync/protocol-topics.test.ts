import { describe, expect, it } from 'vitest';
import {
  CLOUD_SUBSCRIPTIONS,
  cloudSubscriptions,
  commandResultTopic,
  isCommandResult,
  parseTopic,
  topicsFor,
} from '../../../shared/sync/protocol.js';

/** docs/sync.md "Topics": each site's topics, and what the cloud listens to. */
describe('sync topics', () => {
  it('every topic of a site lies under yards/<site>/', () => {
    expect(topicsFor('site-a')).toEqual({
      upChanges: 'yards/site-a/up/changes',
      upAck: 'yards/site-a/up/ack',
      downChanges: 'yards/site-a/down/changes',
      downAck: 'yards/site-a/down/ack',
      downCmd: 'yards/site-a/down/cmd',
      upCmdResult: 'yards/site-a/up/cmd-result',
      status: 'yards/site-a/status',
    });
  });

  it('a command result goes to the asking node’s topic, else the site’s one', () => {
    expect(commandResultTopic('site-a', 'node-1')).toBe('yards/site-a/up/cmd-result/node-1');
    expect(commandResultTopic('site-a', undefined)).toBe('yards/site-a/up/cmd-result');
    expect(commandResultTopic('site-a', '')).toBe('yards/site-a/up/cmd-result');
    expect(isCommandResult('up/cmd-result')).toBe(true);
    expect(isCommandResult('up/cmd-result/node-1')).toBe(true);
    expect(isCommandResult('up/cmd-results')).toBe(false);
    expect(isCommandResult('down/cmd-result')).toBe(false);
    expect(isCommandResult('x/up/cmd-result/')).toBe(false);
  });

  it('one cloud node takes everything; several share the batches and each hears its own results', () => {
    expect(CLOUD_SUBSCRIPTIONS).toEqual(['yards/+/up/#', 'yards/+/status']);
    const one = cloudSubscriptions('n1', false);
    expect(one).toEqual(CLOUD_SUBSCRIPTIONS);
    one.push('x');
    expect(CLOUD_SUBSCRIPTIONS).toHaveLength(2);
    expect(cloudSubscriptions('n1', true)).toEqual([
      '$share/cloud/yards/+/up/changes',
      'yards/+/up/ack',
      'yards/+/up/cmd-result',
      'yards/+/up/cmd-result/n1',
      'yards/+/status',
    ]);
  });

  it('a topic names one site, with the site id rule; anything else is not a site topic', () => {
    expect(parseTopic('yards/site-a/up/changes')).toEqual({ siteId: 'site-a', rest: 'up/changes' });
    expect(parseTopic('yards/S_1/status')).toEqual({ siteId: 'S_1', rest: 'status' });
    expect(parseTopic(`yards/${'a'.repeat(64)}/status`)?.siteId).toHaveLength(64);
    for (const topic of [
      `yards/${'a'.repeat(65)}/status`,
      'yards/+/status',
      'yards/site a/status',
      'yards/site-a/',
      'yards/site-a',
      'xyards/site-a/status',
      'other/yards/site-a/status',
      'yards//status',
      'yards/site-a/up\nx',
    ]) {
      expect(parseTopic(topic), topic).toBeUndefined();
    }
  });
});
