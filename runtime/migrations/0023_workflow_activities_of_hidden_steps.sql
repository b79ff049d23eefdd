-- An activity of a step marked hidden is shown where the step is: to sys tokens asking for every
-- step (2.8's visibility=all, 4.13 with a sys token), not to users.
alter table workflow_activities add column hidden boolean not null default false;
