SHOW server_version;
