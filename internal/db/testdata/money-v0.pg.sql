-- The money fixture of internal/db (testdata/moneyfixture) on PostgreSQL: pg_dump --inserts of
-- the schema of commit 10a3e48, without the schema qualifier, to load into any schema.
SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;
SET default_tablespace = '';
SET default_table_access_method = heap;
CREATE TABLE activity_entries (
    id character varying NOT NULL,
    action character varying NOT NULL,
    category character varying NOT NULL,
    actor character varying NOT NULL,
    summary text NOT NULL,
    card_id character varying,
    is_cross_user boolean DEFAULT false NOT NULL,
    metadata text,
    created_at timestamp with time zone NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE agent_quality_signals (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    signal character varying NOT NULL,
    weight double precision NOT NULL,
    metadata text,
    agent_id character varying NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE api_keys (
    id character varying NOT NULL,
    label character varying NOT NULL,
    scopes jsonb NOT NULL,
    prefix character varying NOT NULL,
    key_hash character varying NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone,
    expires_at timestamp with time zone,
    user_id character varying NOT NULL
);
CREATE TABLE capability_installs (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    active boolean DEFAULT true NOT NULL,
    customizations jsonb NOT NULL,
    resolved_prompt text,
    capability_id character varying NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE capability_packs (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    name character varying NOT NULL,
    description text,
    icon character varying,
    category character varying,
    integration_type character varying,
    pricing_model character varying DEFAULT 'free'::character varying NOT NULL,
    price double precision DEFAULT 0 NOT NULL,
    prompt text NOT NULL,
    editable_fields jsonb NOT NULL,
    access_password_sealed bytea,
    user_id character varying NOT NULL
);
CREATE TABLE card_contacts (
    id character varying NOT NULL,
    role character varying,
    involvement character varying DEFAULT 'related'::character varying NOT NULL,
    can_delegate boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone NOT NULL,
    card_id character varying NOT NULL,
    contact_id character varying NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE cards (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    title character varying NOT NULL,
    description text,
    status character varying DEFAULT 'active'::character varying NOT NULL,
    priority character varying DEFAULT 'medium'::character varying NOT NULL,
    assignee character varying DEFAULT 'human'::character varying NOT NULL,
    due_date timestamp with time zone,
    "order" bigint DEFAULT 0 NOT NULL,
    summary text,
    brief text,
    assignee_user_id character varying,
    assignee_agent_id character varying,
    assigned_by_id character varying,
    reminder_offset_minutes integer,
    reminder_fired_at timestamp with time zone,
    project_id character varying,
    workspace_id character varying,
    origin_card_id character varying,
    origin_user_id character varying,
    source_relay_id character varying,
    shared_project_id character varying,
    template_id character varying,
    counterparty_user_id character varying,
    project_role character varying,
    parent_card_id character varying,
    parent_checklist_item_id character varying,
    card_role character varying,
    rollup_card_id character varying,
    project_task_key character varying,
    source_run_id character varying,
    source_channel character varying,
    difference_id character varying,
    unified_thread_id character varying,
    payment_hold_id character varying,
    payment_status character varying,
    project_price double precision,
    completion_suggested_by character varying,
    completion_suggested_at timestamp with time zone,
    settled_at timestamp with time zone,
    card_type character varying,
    labels jsonb NOT NULL,
    cover_color character varying,
    cover_image_url character varying,
    priority_score integer,
    start_date timestamp with time zone,
    last_activity_at timestamp with time zone,
    is_archived boolean DEFAULT false NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE chat_messages (
    id character varying NOT NULL,
    role character varying NOT NULL,
    content text NOT NULL,
    metadata text,
    metadata_type character varying,
    agent_name character varying,
    cleared_at timestamp with time zone,
    sandbox_id character varying,
    created_at timestamp with time zone NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE checklist_items (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    text text NOT NULL,
    completed boolean DEFAULT false NOT NULL,
    "order" integer DEFAULT 0 NOT NULL,
    summary text,
    brief text,
    due_date timestamp with time zone,
    source_type character varying,
    source_id character varying,
    source_label character varying,
    assignee_type character varying,
    assignee_name character varying,
    assignee_id character varying,
    delegation_status character varying,
    child_card_id character varying,
    card_id character varying NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE connect_tokens (
    id character varying NOT NULL,
    purpose character varying NOT NULL,
    prefix character varying NOT NULL,
    token_hash character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    agent_id character varying,
    user_id character varying NOT NULL
);
CREATE TABLE contacts (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    name character varying NOT NULL,
    email character varying,
    phone character varying,
    company character varying,
    role character varying,
    preferred_channel character varying,
    notes text,
    tags jsonb NOT NULL,
    source character varying,
    enriched_data text,
    platform_user_id character varying,
    platform_user_status character varying,
    matched_at timestamp with time zone,
    last_interaction_at timestamp with time zone,
    last_interaction_type character varying,
    user_id character varying NOT NULL
);
CREATE TABLE developer_keys (
    id character varying NOT NULL,
    label character varying NOT NULL,
    prefix character varying NOT NULL,
    key_hash character varying NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone,
    user_id character varying NOT NULL
);
CREATE TABLE documents (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    title character varying NOT NULL,
    content text NOT NULL,
    source character varying NOT NULL,
    shared_by character varying,
    execution_id character varying,
    user_id character varying NOT NULL
);
CREATE TABLE executions (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    status character varying NOT NULL,
    input text NOT NULL,
    output text,
    response_time_ms bigint,
    is_own_agent boolean DEFAULT false NOT NULL,
    task_origin character varying DEFAULT 'marketplace'::character varying NOT NULL,
    isolation_mode character varying DEFAULT 'output_only'::character varying NOT NULL,
    task_inputs jsonb,
    caller_instance_url character varying,
    requester_email character varying,
    requester_name character varying,
    callback_url character varying,
    source_instance_id character varying,
    source_instance_name character varying,
    payment_method_id character varying,
    callback_token_hash character varying,
    callback_received_at timestamp with time zone,
    dispatched_at timestamp with time zone,
    failure_reason text,
    queue_position bigint,
    queued_at timestamp with time zone,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    review_status character varying,
    denial_reason text,
    denial_category character varying,
    reviewed_at timestamp with time zone,
    review_widget_shown_at timestamp with time zone,
    payment_hold_status character varying DEFAULT 'none'::character varying NOT NULL,
    hold_expires_at timestamp with time zone,
    pricing_phase character varying,
    quote_amount double precision,
    quote_currency character varying,
    quote_breakdown text,
    relevance bigint,
    coherence bigint,
    completeness bigint,
    rating bigint,
    feedback text,
    currency character varying,
    gross double precision,
    developer_payout double precision,
    platform_fee double precision,
    fee_percent double precision,
    agent_id character varying NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE ledger_entries (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    hold_id character varying NOT NULL,
    execution_id character varying NOT NULL,
    kind character varying NOT NULL,
    account character varying NOT NULL,
    amount double precision NOT NULL,
    currency character varying NOT NULL
);
CREATE TABLE memory_entries (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    source character varying NOT NULL,
    source_id character varying NOT NULL,
    kind character varying NOT NULL,
    title character varying NOT NULL,
    content text NOT NULL,
    "position" bigint DEFAULT 0 NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE payment_holds (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    execution_id character varying NOT NULL,
    payer_id character varying NOT NULL,
    payee_id character varying NOT NULL,
    payment_method_id character varying NOT NULL,
    amount double precision NOT NULL,
    currency character varying NOT NULL,
    developer_payout double precision NOT NULL,
    platform_fee double precision NOT NULL,
    fee_percent double precision NOT NULL,
    status character varying NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    settled_at timestamp with time zone
);
CREATE TABLE queue_items (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    type character varying DEFAULT 'task'::character varying NOT NULL,
    title character varying NOT NULL,
    description text,
    priority character varying DEFAULT 'medium'::character varying NOT NULL,
    status character varying DEFAULT 'pending_confirmation'::character varying NOT NULL,
    source character varying,
    metadata text,
    task_origin character varying DEFAULT 'owner'::character varying NOT NULL,
    project_id character varying,
    team_id character varying,
    card_id character varying,
    parent_task_id character varying,
    depends_on character varying,
    subtask_order integer,
    requester_email character varying,
    requester_name character varying,
    execution_id character varying,
    callback_url character varying,
    source_instance_name character varying,
    project_request_id character varying,
    result text,
    result_status character varying,
    reported_by character varying,
    completed_at timestamp with time zone,
    user_id character varying NOT NULL
);
CREATE TABLE sessions (
    id character varying NOT NULL,
    token_hash character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE settings (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    queue_auto_approve boolean DEFAULT false NOT NULL,
    assistant_name character varying,
    goals_enabled boolean DEFAULT false NOT NULL,
    onboarding_complete boolean DEFAULT false NOT NULL,
    onboarding_phase integer DEFAULT 0 NOT NULL,
    service_keys jsonb NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE ship_gate_runs (
    id character varying NOT NULL,
    trigger character varying NOT NULL,
    task text NOT NULL,
    passed boolean NOT NULL,
    hint character varying,
    http_status bigint,
    response_time_ms bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone NOT NULL,
    agent_id character varying NOT NULL
);
CREATE TABLE store_agents (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    name character varying NOT NULL,
    slug character varying NOT NULL,
    description text,
    endpoint_url character varying,
    developer_name character varying,
    category character varying,
    pricing_model character varying DEFAULT 'free'::character varying NOT NULL,
    price_per_task double precision DEFAULT 0 NOT NULL,
    currency character varying DEFAULT 'USD'::character varying NOT NULL,
    pricing_config jsonb,
    install_guide text,
    commands jsonb NOT NULL,
    task_types jsonb NOT NULL,
    context_instructions text,
    supports_a2a boolean DEFAULT false NOT NULL,
    supports_mcp boolean DEFAULT false NOT NULL,
    version character varying DEFAULT '1.0.0'::character varying NOT NULL,
    changelog jsonb NOT NULL,
    access_password_hash character varying,
    input_format character varying DEFAULT 'text'::character varying NOT NULL,
    output_format character varying,
    auth_method character varying DEFAULT 'none'::character varying NOT NULL,
    auth_credential_encrypted bytea,
    health_check_url character varying,
    declared_widget_types jsonb NOT NULL,
    availability character varying DEFAULT 'available'::character varying NOT NULL,
    current_execution_id character varying,
    execution_timeout bigint DEFAULT 1800 NOT NULL,
    required_input_schema text,
    output_schema text,
    usage_examples text,
    context_preparation text,
    execution_notes text,
    status character varying DEFAULT 'active'::character varying NOT NULL,
    remote_id character varying,
    source_instance_id character varying,
    rating_avg double precision DEFAULT 0 NOT NULL,
    rating_count bigint DEFAULT 0 NOT NULL,
    quality_score double precision,
    quality_signal_count bigint DEFAULT 0 NOT NULL,
    install_count bigint DEFAULT 0 NOT NULL,
    subscriber_count bigint DEFAULT 0 NOT NULL,
    execution_count bigint DEFAULT 0 NOT NULL,
    self_config_token_hash character varying,
    source_instance_url character varying,
    user_id character varying NOT NULL
);
CREATE TABLE store_installs (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    agent_id character varying NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE store_subscriptions (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    agent_id character varying NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE stream_events (
    id bigint NOT NULL,
    payload bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    user_id character varying NOT NULL
);
ALTER TABLE stream_events ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME stream_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
CREATE TABLE user_reputations (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    task_economy_role character varying NOT NULL,
    reputation_score double precision DEFAULT 0 NOT NULL,
    avg_rating double precision,
    avg_provider_rating double precision,
    avg_client_rating double precision,
    reviews_received bigint DEFAULT 0 NOT NULL,
    reviews_given bigint DEFAULT 0 NOT NULL,
    user_id character varying NOT NULL
);
CREATE TABLE users (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    username character varying NOT NULL,
    email character varying NOT NULL,
    name character varying NOT NULL,
    password_hash character varying NOT NULL,
    role character varying DEFAULT 'member'::character varying NOT NULL,
    avatar character varying
);
CREATE TABLE webhook_deliveries (
    id character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    event character varying NOT NULL,
    url character varying NOT NULL,
    payload text NOT NULL,
    status character varying DEFAULT 'pending'::character varying NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone NOT NULL,
    claim_token character varying,
    last_attempt_at timestamp with time zone,
    last_status integer,
    last_error character varying,
    delivered_at timestamp with time zone,
    user_id character varying NOT NULL
);
INSERT INTO capability_packs VALUES ('fx_pack_paid', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'fx_pack_paid', NULL, NULL, NULL, NULL, 'one_time', 19.99, 'Do {{thing}}', '[]', NULL, 'fx_alice');
INSERT INTO capability_packs VALUES ('fx_pack_cheap', '2026-11-20 12:01:00+00', '2026-11-20 12:00:00+00', 'fx_pack_cheap', NULL, NULL, NULL, NULL, 'one_time', 0.38, 'Do {{thing}}', '[]', NULL, 'fx_alice');
INSERT INTO capability_packs VALUES ('fx_pack_free', '2026-11-20 12:02:00+00', '2026-11-20 12:00:00+00', 'fx_pack_free', NULL, NULL, NULL, NULL, 'free', 0, 'Do {{thing}}', '[]', NULL, 'fx_alice');
INSERT INTO cards VALUES ('fx_card_0', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'card 0', NULL, 'active', 'medium', 'human', NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1234.56, NULL, NULL, NULL, NULL, '[]', NULL, NULL, NULL, NULL, NULL, false, 'fx_bob');
INSERT INTO cards VALUES ('fx_card_1', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'card 1', NULL, 'active', 'medium', 'human', NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0.38, NULL, NULL, NULL, NULL, '[]', NULL, NULL, NULL, NULL, NULL, false, 'fx_bob');
INSERT INTO cards VALUES ('fx_card_2', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'card 2', NULL, 'active', 'medium', 'human', NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '[]', NULL, NULL, NULL, NULL, NULL, false, 'fx_bob');
INSERT INTO executions VALUES ('fx_ex_captured', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'completed', 'write', 'done', NULL, false, 'marketplace', 'output_only', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'confirmed', NULL, NULL, NULL, NULL, 'captured', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'USD', 2.5, 2.12, 0.38, 15, 'fx_agent_writer', 'fx_bob');
INSERT INTO executions VALUES ('fx_ex_held', '2026-11-20 12:01:00+00', '2026-11-20 12:00:00+00', 'completed', 'write', 'done', NULL, false, 'marketplace', 'output_only', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'pending_review', NULL, NULL, NULL, '2026-11-20 12:00:00+00', 'held', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'EUR', 2.13, 1.81, 0.32, 15, 'fx_agent_euro', 'fx_bob');
INSERT INTO executions VALUES ('fx_ex_quoted', '2026-11-20 12:02:00+00', '2026-11-20 12:00:00+00', 'running', 'estimate', NULL, NULL, false, 'marketplace', 'output_only', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '2026-11-20 12:00:00+00', NULL, NULL, NULL, NULL, NULL, NULL, 'none', NULL, 'quoted', 19.99, 'USD', 'one page', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'fx_agent_quoter', 'fx_bob');
INSERT INTO ledger_entries VALUES ('fx_hold_captured_0', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'fx_hold_captured', 'fx_ex_captured', 'authorize', 'fx_bob', -2.5, 'USD');
INSERT INTO ledger_entries VALUES ('fx_hold_captured_1', '2026-11-20 12:00:01+00', '2026-11-20 12:00:00+00', 'fx_hold_captured', 'fx_ex_captured', 'capture_developer', 'fx_alice', 2.12, 'USD');
INSERT INTO ledger_entries VALUES ('fx_hold_captured_2', '2026-11-20 12:00:02+00', '2026-11-20 12:00:00+00', 'fx_hold_captured', 'fx_ex_captured', 'capture_platform', 'platform', 0.38, 'USD');
INSERT INTO ledger_entries VALUES ('fx_hold_held_0', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'fx_hold_held', 'fx_ex_held', 'authorize', 'fx_bob', -2.13, 'EUR');
INSERT INTO payment_holds VALUES ('fx_hold_captured', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'fx_ex_captured', 'fx_bob', 'fx_alice', 'ledger_default', 2.5, 'USD', 2.12, 0.38, 15, 'captured', '2026-11-27 12:00:00+00', NULL);
INSERT INTO payment_holds VALUES ('fx_hold_held', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'fx_ex_held', 'fx_bob', 'fx_alice', 'ledger_default', 2.13, 'EUR', 1.81, 0.32, 15, 'held', '2026-11-27 12:00:00+00', NULL);
INSERT INTO store_agents VALUES ('fx_agent_writer', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'fx_agent_writer', 'agent_writer', NULL, NULL, NULL, NULL, 'per_task', 2.5, 'USD', '{"model": "tiered", "tiers": [{"name": "basic", "taskLimit": 100, "pricePerTask": 2.12}, {"name": "pro", "pricePerTask": 19.99}]}', NULL, '[]', '[]', NULL, false, false, '1.0.0', '[]', NULL, 'text', NULL, 'none', NULL, NULL, '[]', 'available', NULL, 1800, NULL, NULL, NULL, NULL, NULL, 'active', NULL, NULL, 0, 0, NULL, 0, 0, 0, 0, NULL, NULL, 'fx_alice');
INSERT INTO store_agents VALUES ('fx_agent_euro', '2026-11-20 12:02:00+00', '2026-11-20 12:00:00+00', 'fx_agent_euro', 'agent_euro', NULL, NULL, NULL, NULL, 'per_task', 2.125, 'EUR', NULL, NULL, '[]', '[]', NULL, false, false, '1.0.0', '[]', NULL, 'text', NULL, 'none', NULL, NULL, '[]', 'available', NULL, 1800, NULL, NULL, NULL, NULL, NULL, 'active', NULL, NULL, 0, 0, NULL, 0, 0, 0, 0, NULL, NULL, 'fx_alice');
INSERT INTO store_agents VALUES ('fx_agent_free', '2026-11-20 12:03:00+00', '2026-11-20 12:00:00+00', 'fx_agent_free', 'agent_free', NULL, NULL, NULL, NULL, 'free', 0, 'USD', NULL, NULL, '[]', '[]', NULL, false, false, '1.0.0', '[]', NULL, 'text', NULL, 'none', NULL, NULL, '[]', 'available', NULL, 1800, NULL, NULL, NULL, NULL, NULL, 'active', NULL, NULL, 0, 0, NULL, 0, 0, 0, 0, NULL, NULL, 'fx_alice');
INSERT INTO store_agents VALUES ('fx_agent_quoter', '2026-11-20 12:01:00+00', '2026-11-23 14:38:11.057422+00', 'fx_agent_quoter', 'agent_quoter', NULL, NULL, NULL, NULL, 'dynamic', 0, 'USD', '{"model": "dynamic", "dynamicConfig": {"estimateRange": [0.38, 19.99], "requiresApproval": true}}', NULL, '[]', '[]', NULL, false, false, '1.0.0', '[]', NULL, 'text', NULL, 'none', NULL, NULL, '[]', 'available', 'fx_ex_quoted', 1800, NULL, NULL, NULL, NULL, NULL, 'active', NULL, NULL, 0, 0, NULL, 0, 0, 0, 0, NULL, NULL, 'fx_alice');
INSERT INTO users VALUES ('fx_alice', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'alice', 'alice@example.com', 'alice', '$2a$04$UAB06ebaWwDvldqQAQI3tOc8mufkRq8/3qL6KZCwwiiPB/1D42yji', 'member', NULL);
INSERT INTO users VALUES ('fx_bob', '2026-11-20 12:00:00+00', '2026-11-20 12:00:00+00', 'bob', 'bob@example.com', 'bob', '$2a$04$UAB06ebaWwDvldqQAQI3tOc8mufkRq8/3qL6KZCwwiiPB/1D42yji', 'member', NULL);
SELECT pg_catalog.setval('stream_events_id_seq', 1, false);
ALTER TABLE ONLY activity_entries
    ADD CONSTRAINT activity_entries_pkey PRIMARY KEY (id);
ALTER TABLE ONLY agent_quality_signals
    ADD CONSTRAINT agent_quality_signals_pkey PRIMARY KEY (id);
ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);
ALTER TABLE ONLY capability_installs
    ADD CONSTRAINT capability_installs_pkey PRIMARY KEY (id);
ALTER TABLE ONLY capability_packs
    ADD CONSTRAINT capability_packs_pkey PRIMARY KEY (id);
ALTER TABLE ONLY card_contacts
    ADD CONSTRAINT card_contacts_pkey PRIMARY KEY (id);
ALTER TABLE ONLY cards
    ADD CONSTRAINT cards_pkey PRIMARY KEY (id);
ALTER TABLE ONLY chat_messages
    ADD CONSTRAINT chat_messages_pkey PRIMARY KEY (id);
ALTER TABLE ONLY checklist_items
    ADD CONSTRAINT checklist_items_pkey PRIMARY KEY (id);
ALTER TABLE ONLY connect_tokens
    ADD CONSTRAINT connect_tokens_pkey PRIMARY KEY (id);
ALTER TABLE ONLY contacts
    ADD CONSTRAINT contacts_pkey PRIMARY KEY (id);
ALTER TABLE ONLY developer_keys
    ADD CONSTRAINT developer_keys_pkey PRIMARY KEY (id);
ALTER TABLE ONLY documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (id);
ALTER TABLE ONLY executions
    ADD CONSTRAINT executions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY ledger_entries
    ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (id);
ALTER TABLE ONLY memory_entries
    ADD CONSTRAINT memory_entries_pkey PRIMARY KEY (id);
ALTER TABLE ONLY payment_holds
    ADD CONSTRAINT payment_holds_pkey PRIMARY KEY (id);
ALTER TABLE ONLY queue_items
    ADD CONSTRAINT queue_items_pkey PRIMARY KEY (id);
ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (id);
ALTER TABLE ONLY ship_gate_runs
    ADD CONSTRAINT ship_gate_runs_pkey PRIMARY KEY (id);
ALTER TABLE ONLY store_agents
    ADD CONSTRAINT store_agents_pkey PRIMARY KEY (id);
ALTER TABLE ONLY store_installs
    ADD CONSTRAINT store_installs_pkey PRIMARY KEY (id);
ALTER TABLE ONLY store_subscriptions
    ADD CONSTRAINT store_subscriptions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY stream_events
    ADD CONSTRAINT stream_events_pkey PRIMARY KEY (id);
ALTER TABLE ONLY user_reputations
    ADD CONSTRAINT user_reputations_pkey PRIMARY KEY (id);
ALTER TABLE ONLY users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);
ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);
CREATE INDEX activityentry_card_id_created_at ON activity_entries USING btree (card_id, created_at);
CREATE INDEX activityentry_user_id_category_created_at ON activity_entries USING btree (user_id, category, created_at);
CREATE INDEX activityentry_user_id_created_at ON activity_entries USING btree (user_id, created_at);
CREATE INDEX agentqualitysignal_agent_id_created_at ON agent_quality_signals USING btree (agent_id, created_at);
CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys USING btree (key_hash);
CREATE INDEX apikey_user_id ON api_keys USING btree (user_id);
CREATE INDEX capabilityinstall_capability_id ON capability_installs USING btree (capability_id);
CREATE UNIQUE INDEX capabilityinstall_user_id_capability_id ON capability_installs USING btree (user_id, capability_id);
CREATE INDEX capabilitypack_created_at ON capability_packs USING btree (created_at);
CREATE INDEX card_origin_card_id ON cards USING btree (origin_card_id);
CREATE INDEX card_user_id_project_id_updated_at ON cards USING btree (user_id, project_id, updated_at);
CREATE INDEX card_user_id_status_order ON cards USING btree (user_id, status, "order");
CREATE INDEX card_user_id_updated_at ON cards USING btree (user_id, updated_at);
CREATE UNIQUE INDEX cardcontact_card_id_contact_id ON card_contacts USING btree (card_id, contact_id);
CREATE INDEX cardcontact_contact_id ON card_contacts USING btree (contact_id);
CREATE INDEX cardcontact_user_id ON card_contacts USING btree (user_id);
CREATE INDEX chatmessage_user_id_created_at ON chat_messages USING btree (user_id, created_at);
CREATE INDEX chatmessage_user_id_metadata_type_created_at ON chat_messages USING btree (user_id, metadata_type, created_at);
CREATE INDEX checklistitem_card_id_order ON checklist_items USING btree (card_id, "order");
CREATE INDEX checklistitem_user_id_source_type_source_id ON checklist_items USING btree (user_id, source_type, source_id);
CREATE UNIQUE INDEX connect_tokens_token_hash_key ON connect_tokens USING btree (token_hash);
CREATE INDEX connecttoken_user_id_used_at_expires_at ON connect_tokens USING btree (user_id, used_at, expires_at);
CREATE INDEX contact_user_id_name ON contacts USING btree (user_id, name);
CREATE UNIQUE INDEX developer_keys_key_hash_key ON developer_keys USING btree (key_hash);
CREATE INDEX developerkey_user_id ON developer_keys USING btree (user_id);
CREATE INDEX document_execution_id ON documents USING btree (execution_id);
CREATE INDEX document_user_id_created_at ON documents USING btree (user_id, created_at);
CREATE INDEX execution_agent_id_status_queued_at ON executions USING btree (agent_id, status, queued_at);
CREATE INDEX execution_review_status_review_widget_shown_at ON executions USING btree (review_status, review_widget_shown_at);
CREATE INDEX execution_status_started_at ON executions USING btree (status, started_at);
CREATE INDEX execution_user_id_created_at ON executions USING btree (user_id, created_at);
CREATE INDEX ledgerentry_account_created_at ON ledger_entries USING btree (account, created_at);
CREATE INDEX ledgerentry_hold_id ON ledger_entries USING btree (hold_id);
CREATE INDEX memoryentry_source_source_id ON memory_entries USING btree (source, source_id);
CREATE INDEX memoryentry_user_id_source_source_id_position ON memory_entries USING btree (user_id, source, source_id, "position");
CREATE UNIQUE INDEX payment_holds_execution_id_key ON payment_holds USING btree (execution_id);
CREATE INDEX paymenthold_payer_id_created_at ON payment_holds USING btree (payer_id, created_at);
CREATE INDEX paymenthold_status_expires_at ON payment_holds USING btree (status, expires_at);
CREATE INDEX queueitem_execution_id ON queue_items USING btree (execution_id);
CREATE INDEX queueitem_user_id_created_at ON queue_items USING btree (user_id, created_at);
CREATE INDEX queueitem_user_id_depends_on ON queue_items USING btree (user_id, depends_on);
CREATE INDEX queueitem_user_id_parent_task_id ON queue_items USING btree (user_id, parent_task_id);
CREATE INDEX queueitem_user_id_status_created_at ON queue_items USING btree (user_id, status, created_at);
CREATE INDEX session_user_id ON sessions USING btree (user_id);
CREATE UNIQUE INDEX sessions_token_hash_key ON sessions USING btree (token_hash);
CREATE UNIQUE INDEX settings_user_id_key ON settings USING btree (user_id);
CREATE INDEX shipgaterun_agent_id_passed_created_at ON ship_gate_runs USING btree (agent_id, passed, created_at);
CREATE UNIQUE INDEX store_agents_self_config_token_hash_key ON store_agents USING btree (self_config_token_hash);
CREATE UNIQUE INDEX store_agents_slug_key ON store_agents USING btree (slug);
CREATE UNIQUE INDEX storeagent_source_instance_id_remote_id ON store_agents USING btree (source_instance_id, remote_id);
CREATE INDEX storeagent_status_category ON store_agents USING btree (status, category);
CREATE INDEX storeagent_status_created_at ON store_agents USING btree (status, created_at);
CREATE INDEX storeagent_user_id_status ON store_agents USING btree (user_id, status);
CREATE INDEX storeinstall_agent_id ON store_installs USING btree (agent_id);
CREATE UNIQUE INDEX storeinstall_user_id_agent_id ON store_installs USING btree (user_id, agent_id);
CREATE INDEX storesubscription_agent_id ON store_subscriptions USING btree (agent_id);
CREATE UNIQUE INDEX storesubscription_user_id_agent_id ON store_subscriptions USING btree (user_id, agent_id);
CREATE INDEX streamevent_created_at ON stream_events USING btree (created_at);
CREATE INDEX streamevent_user_id_id ON stream_events USING btree (user_id, id);
CREATE UNIQUE INDEX user_reputations_user_id_key ON user_reputations USING btree (user_id);
CREATE UNIQUE INDEX users_email_key ON users USING btree (email);
CREATE UNIQUE INDEX users_username_key ON users USING btree (username);
CREATE INDEX webhookdelivery_status_next_attempt_at ON webhook_deliveries USING btree (status, next_attempt_at);
CREATE INDEX webhookdelivery_user_id_created_at ON webhook_deliveries USING btree (user_id, created_at);
ALTER TABLE ONLY activity_entries
    ADD CONSTRAINT activity_entries_users_activity_entries FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY agent_quality_signals
    ADD CONSTRAINT agent_quality_signals_store_agents_quality_signals FOREIGN KEY (agent_id) REFERENCES store_agents(id) ON DELETE CASCADE;
ALTER TABLE ONLY agent_quality_signals
    ADD CONSTRAINT agent_quality_signals_users_quality_signals FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_users_api_keys FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY capability_installs
    ADD CONSTRAINT capability_installs_capability_packs_installs FOREIGN KEY (capability_id) REFERENCES capability_packs(id);
ALTER TABLE ONLY capability_installs
    ADD CONSTRAINT capability_installs_users_capability_installs FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY capability_packs
    ADD CONSTRAINT capability_packs_users_capability_packs FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY card_contacts
    ADD CONSTRAINT card_contacts_cards_card_contacts FOREIGN KEY (card_id) REFERENCES cards(id) ON DELETE CASCADE;
ALTER TABLE ONLY card_contacts
    ADD CONSTRAINT card_contacts_contacts_card_contacts FOREIGN KEY (contact_id) REFERENCES contacts(id) ON DELETE CASCADE;
ALTER TABLE ONLY card_contacts
    ADD CONSTRAINT card_contacts_users_card_contacts FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY cards
    ADD CONSTRAINT cards_users_cards FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY chat_messages
    ADD CONSTRAINT chat_messages_users_chat_messages FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY checklist_items
    ADD CONSTRAINT checklist_items_cards_checklist_items FOREIGN KEY (card_id) REFERENCES cards(id) ON DELETE CASCADE;
ALTER TABLE ONLY checklist_items
    ADD CONSTRAINT checklist_items_users_checklist_items FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY connect_tokens
    ADD CONSTRAINT connect_tokens_users_connect_tokens FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY contacts
    ADD CONSTRAINT contacts_users_contacts FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY developer_keys
    ADD CONSTRAINT developer_keys_users_developer_keys FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY documents
    ADD CONSTRAINT documents_users_documents FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY executions
    ADD CONSTRAINT executions_store_agents_executions FOREIGN KEY (agent_id) REFERENCES store_agents(id) ON DELETE CASCADE;
ALTER TABLE ONLY executions
    ADD CONSTRAINT executions_users_executions FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY memory_entries
    ADD CONSTRAINT memory_entries_users_memory_entries FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY queue_items
    ADD CONSTRAINT queue_items_users_queue_items FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY sessions
    ADD CONSTRAINT sessions_users_sessions FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY settings
    ADD CONSTRAINT settings_users_settings FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY ship_gate_runs
    ADD CONSTRAINT ship_gate_runs_store_agents_ship_gate_runs FOREIGN KEY (agent_id) REFERENCES store_agents(id) ON DELETE CASCADE;
ALTER TABLE ONLY store_agents
    ADD CONSTRAINT store_agents_users_store_agents FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY store_installs
    ADD CONSTRAINT store_installs_store_agents_installs FOREIGN KEY (agent_id) REFERENCES store_agents(id) ON DELETE CASCADE;
ALTER TABLE ONLY store_installs
    ADD CONSTRAINT store_installs_users_store_installs FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY store_subscriptions
    ADD CONSTRAINT store_subscriptions_store_agents_subscriptions FOREIGN KEY (agent_id) REFERENCES store_agents(id) ON DELETE CASCADE;
ALTER TABLE ONLY store_subscriptions
    ADD CONSTRAINT store_subscriptions_users_store_subscriptions FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY stream_events
    ADD CONSTRAINT stream_events_users_stream_events FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY user_reputations
    ADD CONSTRAINT user_reputations_users_reputation FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_users_webhook_deliveries FOREIGN KEY (user_id) REFERENCES users(id);
