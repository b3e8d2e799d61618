-- Background work of a fleet of instances sharing one database (SQLite's 0018_fleet_jobs). A
-- gateway job, a conversation summary being written and a notification carry the instance that
-- started them: an instance that starts up gives up only its own leftover running jobs and
-- processing summaries, and fans out only its own notifications (to its targets). A
-- conversation's extraction is claimed by one instance at a time (extract_instance) until
-- extract_until (epoch ms), renewed as it goes; a claim of an instance that died runs out.
-- A transcript file's index state carries the instance that read it (the file is on its disk).
ALTER TABLE gateway_jobs ADD COLUMN instance TEXT COLLATE "C" NOT NULL DEFAULT 'local';
ALTER TABLE conversation_summaries ADD COLUMN instance TEXT COLLATE "C" NOT NULL DEFAULT 'local';
ALTER TABLE notifications ADD COLUMN instance TEXT COLLATE "C" NOT NULL DEFAULT 'local';
ALTER TABLE conversations ADD COLUMN extract_instance TEXT COLLATE "C";
ALTER TABLE conversations ADD COLUMN extract_until BIGINT;
ALTER TABLE index_state ADD COLUMN instance TEXT COLLATE "C" NOT NULL DEFAULT 'local';

CREATE INDEX gateway_jobs_running ON gateway_jobs (instance NULLS FIRST) WHERE outcome = 'running';
