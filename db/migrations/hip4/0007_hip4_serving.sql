-- hip4 serving: the newest-first fill list and time-windowed statistics without a filter (/hip4/fills,
-- /hip4/providers, /hip4/analytics) read fills by time alone; the other indexes all lead with another column.
CREATE INDEX hip4_fills_time ON hip4.fills (time DESC, tid DESC);
