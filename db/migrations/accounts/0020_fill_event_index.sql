-- A fill's place in its block: its index in the node line's `events` array. The node lists a block's events in the
-- order it executed them, and fills of one timestamp (one user's fills of several coins, a crossing order's partial
-- fills) carry nothing else that says which came first: (block_number, event_index) is the execution order.
-- Fills stored before this column get 0: their order within a block was not kept, and reads break that tie by tid,
-- then address (deterministic, not the node's order).
-- The default stays for writers that name their columns without it (the benches); ingest always sets it.
ALTER TABLE accounts.fills ADD COLUMN event_index integer NOT NULL DEFAULT 0;

-- The fill lists' order (newest time first, then execution order) and the keyset pages' resume point.
DROP INDEX accounts.fills_address_time;
CREATE INDEX fills_address_time ON accounts.fills (address, time DESC, block_number, event_index, tid);
DROP INDEX accounts.fills_time;
CREATE INDEX fills_time ON accounts.fills (time DESC, block_number, event_index, tid);
