import { api, call, type Schemas } from '../../common/api/client';
import { may } from '../access';
import { chosenYardId } from '../records/chosen-yard';
import { fromList, ifMatch } from '../records/http';
import type { EntitySpec } from '../records/types';
import { yard } from '../scope';
import { GATE_DIRECTION, labelOf, RELAY_DRIVER } from './options';

type Gate = Schemas['Gate'];

/** The chosen yard's gates and how each one's relay is wired. Set up at the site (edge-owned). */
export const gates: EntitySpec<Gate> = {
  title: 'Gates',
  singular: 'gate',
  intro: () =>
    `Gates of ${yard.value?.name ?? 'the chosen yard'}. A gate without a relay driver is a manual gate.`,
  columns: [
    { label: 'Name', value: (g) => g.name },
    { label: 'Direction', value: (g) => labelOf(GATE_DIRECTION, g.direction) },
    {
      label: 'Relay',
      value: (g) =>
        g.relay
          ? `${labelOf(RELAY_DRIVER, g.relay.driver)}, channel ${g.relay.channel}, ${g.relay.pulseMs} ms`
          : 'Manual (no relay)',
    },
    { label: 'Cameras', value: (g) => String(g.cameraIds.length) },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true, hint: 'unique in the yard' },
    {
      name: 'direction',
      label: 'Direction',
      kind: 'select',
      options: GATE_DIRECTION,
      initial: 'in',
      required: true,
    },
    {
      name: 'relay.driver',
      label: 'Relay driver',
      kind: 'select',
      options: RELAY_DRIVER,
      hint: 'empty: a manual gate',
    },
    { name: 'relay.channel', label: 'Relay channel', kind: 'number' },
    { name: 'relay.pulseMs', label: 'Pulse (ms)', kind: 'number', hint: '100 to 5000; empty: 500' },
    { name: 'relay.device', label: 'Device', hint: 'serial boards: the serial device path' },
  ],
  api: {
    list: ({ cursor }) =>
      call(api.GET('/api/yard/{id}/gate', { params: { path: { id: chosenYardId() }, query: { cursor } } })),
    // No GET of one gate: the list's row is the version edited.
    load: async (g) => fromList(g),
    create: (body) =>
      call(
        api.POST('/api/yard/{id}/gate', {
          params: { path: { id: chosenYardId() } },
          body: body as Schemas['GateCreate'],
        }),
      ),
    update: (g, body, etag) =>
      call(
        api.PATCH('/api/yard/{id}/gate/{gateId}', {
          params: { path: { id: g.yardId, gateId: g.id } },
          body: body as Schemas['GatePatch'],
          headers: ifMatch(etag),
        }),
      ),
  },
  owner: 'site',
  may: { create: may.editMasterData, edit: may.editMasterData },
  actions: [
    {
      label: 'Remove',
      danger: true,
      confirm: (g) => `Remove gate ${g.name}? Only a gate with no movements or openings can be removed.`,
      run: ({ record }) =>
        call(
          api.DELETE('/api/yard/{id}/gate/{gateId}', {
            params: { path: { id: record.yardId, gateId: record.id } },
          }),
        ),
      may: may.editMasterData,
      done: (g) => `Removed gate ${g.name}.`,
    },
  ],
  label: (g) => g.name,
  empty: 'This yard has no gates yet. Create one with “New gate”.',
};
