import { describe, expect, it } from 'vitest';
import type { FieldSpec } from '../../../shared/ui/dashboard/records/types';
import { fieldsFor, toBody, toFormValues } from '../../../shared/ui/dashboard/records/values';

const fields: FieldSpec[] = [
  { name: 'name', label: 'Name', required: true },
  { name: 'scac', label: 'SCAC', nullable: true },
  { name: 'capacity', label: 'Capacity', kind: 'number', nullable: true },
  { name: 'status', label: 'Status', kind: 'select', initial: 'active' },
  { name: 'enabled', label: 'Enabled', kind: 'checkbox', initial: true },
  { name: 'yardIds', label: 'Yards', kind: 'yards' },
  { name: 'password', label: 'Password', kind: 'password', createOnly: true },
  { name: 'pin', label: 'New PIN', kind: 'password', editOnly: true },
  { name: 'contact.name', label: 'Contact name' },
  { name: 'contact.email', label: 'Contact email' },
];

const record = {
  name: 'Prairie',
  scac: 'PRFL',
  capacity: 12,
  status: 'blocked',
  enabled: false,
  yardIds: ['y1'],
  contact: { name: 'Desk', email: null },
};

describe('record form values', () => {
  it('a new record starts from each field’s initial value, a yard scope of every yard (null)', () => {
    expect(toFormValues(fields, null)).toEqual({
      name: '',
      scac: '',
      capacity: '',
      status: 'active',
      enabled: true,
      yardIds: null,
      password: '',
      pin: '',
      'contact.name': '',
      'contact.email': '',
    });
  });

  it('a record’s values as text, nested fields by their path, passwords never filled in', () => {
    expect(toFormValues(fields, record)).toMatchObject({
      name: 'Prairie',
      capacity: '12',
      enabled: false,
      yardIds: ['y1'],
      password: '',
      'contact.name': 'Desk',
      'contact.email': '',
    });
  });

  it('create sends what is filled in: numbers as numbers, the every-yard scope as null, groups as objects', () => {
    const initial = toFormValues(fields, null);
    const values = {
      ...initial,
      name: ' Lakeside ',
      capacity: '40',
      password: 'secret-pass-1',
      'contact.email': 'a@b.example',
    };
    expect(toBody(fields, values, initial, false)).toEqual({
      name: 'Lakeside',
      capacity: 40,
      status: 'active',
      enabled: true,
      yardIds: null,
      password: 'secret-pass-1',
      contact: { email: 'a@b.example' },
    });
  });

  it('edit sends only what changed; an emptied nullable field is null; create-only fields stay out', () => {
    const initial = toFormValues(fields, record);
    const values = { ...initial, scac: '', password: 'ignored-here', enabled: true };
    expect(toBody(fields, values, initial, true)).toEqual({ scac: null, enabled: true });
  });

  it('edit sends a changed group whole, and null when all its fields were emptied', () => {
    const initial = toFormValues(fields, record);
    expect(toBody(fields, { ...initial, 'contact.email': 'x@y.example' }, initial, true)).toEqual({
      contact: { name: 'Desk', email: 'x@y.example' },
    });
    expect(toBody(fields, { ...initial, 'contact.name': '' }, initial, true)).toEqual({ contact: null });
  });

  it('a password typed on edit is sent, left empty it is kept', () => {
    const initial = toFormValues(fields, record);
    expect(toBody(fields, { ...initial, pin: '4711' }, initial, true)).toEqual({ pin: '4711' });
    expect(toBody(fields, initial, initial, true)).toEqual({});
  });

  it('text that is not a number goes as typed, so the server’s words come back on the field', () => {
    const initial = toFormValues(fields, null);
    expect(toBody(fields, { ...initial, name: 'x', capacity: 'ten' }, initial, false).capacity).toBe('ten');
  });

  it('editing shows create-only fields (not editable) but a create-only password; creating hides edit-only ones', () => {
    const shownOnEdit = fieldsFor(
      [...fields, { name: 'username', label: 'Username', createOnly: true }],
      true,
    );
    expect(shownOnEdit.map((f) => f.name)).toContain('username');
    expect(shownOnEdit.map((f) => f.name)).not.toContain('password');
    expect(fieldsFor(fields, false).map((f) => f.name)).not.toContain('pin');
  });

  it('a JSON field shows the object as text and sends it parsed (as typed when it is not JSON)', () => {
    const json: FieldSpec[] = [{ name: 'config', label: 'Config', kind: 'json' }];
    const initial = toFormValues(json, { config: { a: 1 } });
    expect(initial.config).toBe('{\n  "a": 1\n}');
    expect(toBody(json, { config: '{"a": 2}' }, initial, true)).toEqual({ config: { a: 2 } });
    expect(toBody(json, { config: '{a: 2' }, initial, true)).toEqual({ config: '{a: 2' });
  });
});
