import { describe, expect, it } from 'vitest';
import {
  notificationUrl,
  pickAppWindow,
  taskNotification,
  taskUrl,
} from '../../../shared/ui/driver/push/payload';

describe('push payload: what the service worker shows', () => {
  it("the server's task message: its title and text, one notification per task, opening that task", () => {
    const text = JSON.stringify({
      title: 'New yard task',
      body: 'High-priority move task is assigned to you.',
      data: { event: 'task.assigned', taskId: '01JZ0TASK-A_1' },
    });
    expect(taskNotification(text)).toEqual({
      title: 'New yard task',
      options: {
        body: 'High-priority move task is assigned to you.',
        tag: 'task-01JZ0TASK-A_1',
        renotify: true,
        icon: '/driver/icons/icon-192.png',
        data: { taskId: '01JZ0TASK-A_1', url: '/driver/task/01JZ0TASK-A_1' },
      },
    });
  });

  it('no payload, not JSON, or not an object: still a notification, opening the app', () => {
    for (const text of [null, '', 'hello', '[1,2]', 'null', '42']) {
      const n = taskNotification(text);
      expect(n.title, String(text)).toBe('Yard tasks');
      expect(n.options).toMatchObject({ tag: 'tasks', data: { taskId: null, url: '/driver/' } });
      expect(n.options.body).toMatch(/Open the app/);
    }
  });

  it('a task id that is not an id is not put in a URL; blank texts fall back; long texts are cut', () => {
    const n = taskNotification(
      JSON.stringify({ title: '  ', body: 'x'.repeat(900), data: { taskId: '../../api/auth?x=1' } }),
    );
    expect(n.title).toBe('Yard tasks');
    expect(n.options.body).toHaveLength(500);
    expect(n.options.body.endsWith('…')).toBe(true);
    expect(n.options.data).toEqual({ taskId: null, url: '/driver/' });
    expect(
      taskNotification(JSON.stringify({ title: 7, data: { taskId: 5 } })).options.data.taskId,
    ).toBeNull();
  });
});

describe('notification tap: which page, which window', () => {
  it('opens the URL the notification carries only when it is a page of the app', () => {
    expect(notificationUrl({ url: taskUrl('t1') })).toBe('/driver/task/t1');
    for (const data of [
      null,
      'x',
      { url: 'https://evil.example/' },
      { url: '//evil.example/driver/' },
      { url: '/gate/' },
    ]) {
      expect(notificationUrl(data), JSON.stringify(data)).toBe('/driver/');
    }
  });

  it('brings forward a window showing the app on this origin, not another app or site', () => {
    const origin = 'https://yard.example';
    const windows = [
      { url: 'https://yard.example/gate/', id: 'gate' },
      { url: 'https://other.example/driver/', id: 'other' },
      { url: 'https://yard.example/driver/task/t0', id: 'driver' },
    ];
    expect(pickAppWindow(windows, origin)?.id).toBe('driver');
    expect(pickAppWindow(windows.slice(0, 2), origin)).toBeUndefined();
    expect(pickAppWindow([], origin)).toBeUndefined();
  });
});
