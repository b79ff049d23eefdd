-- Failed sign-ins were counted per account name across tenants and per application; they are now
-- counted per (tenant, account) and per client address under new keys. The old counts cannot be
-- told apart by tenant and are dropped: lockouts in force end now.
delete from login_failures where subject like 'account:%' or subject like 'client:%';
