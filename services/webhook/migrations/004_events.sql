-- The events API (GET /api/v1/events) reads the messages table: one row
-- per event the organization's webhooks could receive, written by the
-- consumer in the transaction that schedules its deliveries, and from
-- now on written even when no endpoint subscribes (an organization that
-- adds its first endpoint after an outage catches up from the API).
-- customer_id is the event's data.customerId, for the customerId filter
-- (NULL for webhook.test, which the API does not list).
ALTER TABLE messages ADD COLUMN customer_id text;
UPDATE messages SET customer_id = convert_from(body, 'UTF8')::jsonb #>> '{data,customerId}'
WHERE event_type <> 'webhook.test';
