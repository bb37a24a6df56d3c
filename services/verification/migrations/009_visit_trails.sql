-- Each visit's audit trail, for operations (GET
-- /admin/v1/tasks/{addressId}/evidence): the check-in and completion
-- fixes with the server's times, the time on site, and the positions the
-- agent app sampled in between (at most 500, the phone's times).
CREATE TABLE visit_trails (
    address_id      text             NOT NULL,
    agent_id        text             NOT NULL,
    outcome         text             NOT NULL,
    check_in        jsonb,
    completion      jsonb            NOT NULL,
    seconds_on_site double precision,
    samples         jsonb            NOT NULL,
    completed_at    timestamptz      NOT NULL,
    PRIMARY KEY (address_id, completed_at)
);
