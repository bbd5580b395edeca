package store

// migrations is the core family's schema history (CoreFamily), in order.
// Append only; a family's own tables go in its own Family.
var migrations = []Migration{
	{Version: 1, Name: "meta", Up: execAll(
		// meta holds one-off markers, e.g. which legacy files were imported.
		`CREATE TABLE meta (
			key   TEXT PRIMARY KEY,
			value TEXT NOT NULL
		) STRICT`,
	)},
	{Version: 2, Name: "paired devices", Up: execAll(
		// One approved device identity per row (the gateway's pairing
		// records, formerly devices/paired.json). roles and scopes are
		// JSON arrays.
		`CREATE TABLE paired_devices (
			device_id            TEXT PRIMARY KEY,
			public_key           TEXT NOT NULL,
			roles                TEXT NOT NULL DEFAULT '[]',
			scopes               TEXT NOT NULL DEFAULT '[]',
			client_id            TEXT NOT NULL DEFAULT '',
			client_mode          TEXT NOT NULL DEFAULT '',
			display_name         TEXT NOT NULL DEFAULT '',
			platform             TEXT NOT NULL DEFAULT '',
			device_family        TEXT NOT NULL DEFAULT '',
			created_at_ms        INTEGER NOT NULL DEFAULT 0,
			approved_at_ms       INTEGER NOT NULL DEFAULT 0,
			last_connected_at_ms INTEGER NOT NULL DEFAULT 0
		) STRICT`,
	)},
	{Version: 3, Name: "device tokens", Up: execAll(
		// The bearer tokens issued to a paired device, one per role, as a
		// JSON array of {role, hash, scopes, issuedAtMs}: only the
		// SHA-256 of each token is kept. They go with the device's row.
		`ALTER TABLE paired_devices ADD COLUMN tokens TEXT NOT NULL DEFAULT '[]'`,
	)},
	{Version: 4, Name: "device operator label", Up: execAll(
		// The label an operator gave a paired device (device.pair.rename).
		`ALTER TABLE paired_devices ADD COLUMN operator_label TEXT NOT NULL DEFAULT ''`,
	)},
}
