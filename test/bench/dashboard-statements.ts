import type Database from 'better-sqlite3';

/** The seeder's INSERTs, prepared once (columns not named take the schema's defaults). */
export function prepareStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    carrier: p(
      `INSERT INTO carrier (id, name, scac, usdot, status, blocked_reason, contact, created_at, updated_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    truck: p(
      `INSERT INTO truck (id, carrier_id, unit_number, plate, plate_region, vin, created_at, updated_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    truckIn: p('UPDATE truck SET yard_id = ?, updated_at = ?, hlc = ?, version = version + 1 WHERE id = ?'),
    driver: p(
      `INSERT INTO driver (id, kind, carrier_id, first_name, last_name, phone, license_number, license_region,
         license_expires_on, driver_code, created_at, updated_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    session: p(
      `INSERT INTO driver_session (id, driver_id, yard_id, device_id, started_at, last_check_at, created_at, updated_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    yard: p(
      `INSERT INTO yard (id, code, name, time_zone, address, capacity, site_id, created_at, updated_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    gate: p(
      `INSERT INTO gate (id, yard_id, name, direction, created_at, updated_at, hlc) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    location: p(
      `INSERT INTO location (id, yard_id, kind, name, capacity, created_at, updated_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    trailer: p(
      `INSERT INTO trailer (id, carrier_id, number, plate, plate_region, type, length_ft, load_status, seal_number,
         yard_id, location_id, arrived_at, created_at, updated_at, hlc, version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    movement: p(
      `INSERT INTO movement (id, yard_id, gate_id, direction, at, truck_id, trailer_id, driver_id, carrier_id,
         location_id, load_status, seal_number, created_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    visit: p(
      `INSERT INTO visit (id, yard_id, unit_kind, trailer_id, truck_id, carrier_id, in_movement_id, out_movement_id, in_at, out_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    task: p(
      `INSERT INTO yard_task (id, yard_id, type, trailer_id, from_location_id, to_location_id, priority, status,
         driver_id, created_at, updated_at, assigned_at, started_at, completed_at, cancelled_at, cancel_reason,
         billed_carrier_id, hlc, version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    taskEvent: p(
      `INSERT INTO task_event (id, task_id, yard_id, at, actor_id, actor_kind, from_status, to_status, driver_id,
         reason, created_at, hlc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    changeLog: p(
      `INSERT INTO change_log (peer, entity, entity_id, op, hlc, origin, schema_v, data)
       VALUES (?, 'carrier', ?, 'upsert', ?, 'cloud', ?, ?)`,
    ),
    cursor: p(
      `INSERT INTO sync_cursor (peer, acked_seq, applied_remote_seq, remote_stream, acked_at, applied_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    siteLink: p(
      `UPDATE site SET link_state = ?, link_changed_at = ?, last_seen_at = ?, reported_queued = ?,
         reported_schema_v = ?, reported_version = ?, clock_skew_ms = ? WHERE id = ?`,
    ),
    deadLetter: p(
      'INSERT INTO dead_letter (peer, seq, entity, entity_id, error, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    errorStat: p(
      `INSERT INTO http_error_stat (yard_id, minute, status, count) VALUES (?, ?, ?, ?)
       ON CONFLICT (yard_id, minute, status) DO UPDATE SET count = count + excluded.count`,
    ),
    billingYard: p(
      `INSERT INTO billing_yard_config (yard_id, currency, tax_rate_bp, grace_minutes, booked_spaces,
         space_monthly_rate, overage_daily_rate, move_fee, gate_fee, issuer_name, created_at, updated_at)
       VALUES (?, 'USD', 800, 120, 200, 15000, 2500, 3500, 1500, 'Yard operator', ?, ?)`,
    ),
    billingCarrier: p(
      `INSERT INTO billing_carrier_config (id, yard_id, carrier_id, booked_spaces, created_at, updated_at)
       VALUES (?, ?, ?, 40, ?, ?)`,
    ),
    invoice: p(
      `INSERT INTO invoice (id, number, yard_id, carrier_id, period, sequence, status, currency, subtotal, tax, total,
         content, generated_at, issued_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
