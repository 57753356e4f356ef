//! What a key is: its kind as `keybench.audit_classify` (sql/audit_values.sql) labels it, and the
//! facts of each kind the decision and the cost read (random or not, its time unit, where its time
//! is).

use crate::kind::KeyTime;

crate::sql_enum! {
    /// How a key gets its values: keybench_audit's `key_kind`, as sql/audit_values.sql's
    /// `keybench.audit_classify` labels it.
    pub enum KeyKind {
        #[strum(serialize = "identity")]
        Identity,
        #[strum(serialize = "sequence")]
        Sequence,
        #[strum(serialize = "uuid v4 (random)")]
        UuidV4,
        #[strum(serialize = "uuid v7")]
        UuidV7,
        #[strum(serialize = "uuid v1")]
        UuidV1,
        #[strum(serialize = "uuid v6")]
        UuidV6,
        #[strum(serialize = "uuid v8")]
        UuidV8,
        /// A uuid whose variant is not RFC 9562's (and whose first bits are no time), or of a version
        /// RFC 9562 does not define or whose order it does not give (v2, v3, v5).
        #[strum(serialize = "uuid (no known version)")]
        UuidOther,
        #[strum(serialize = "uuid v4 as text")]
        UuidV4Text,
        #[strum(serialize = "uuid v7 as text")]
        UuidV7Text,
        /// A uuid of another version stored as text.
        #[strum(serialize = "uuid as text")]
        UuidOtherText,
        #[strum(serialize = "ulid as uuid")]
        UlidUuid,
        #[strum(serialize = "ulid as text")]
        UlidText,
        #[strum(serialize = "snowflake")]
        Snowflake,
        /// A bigint whose top bits look like a time, from an epoch other than Twitter's.
        #[strum(serialize = "snowflake-like integer")]
        SnowflakeLike,
        /// Text of 27 base62 characters: a KSUID, seconds since 2014-05-13 then 128 random bits.
        #[strum(serialize = "ksuid")]
        Ksuid,
        /// A MongoDB ObjectId as 24 hex digits: seconds, then random and a counter.
        #[strum(serialize = "objectid as text")]
        ObjectIdText,
        /// A cuid (v1): 'c', the time in milliseconds in base36, a counter, a fingerprint, random.
        #[strum(serialize = "cuid")]
        Cuid,
        /// An XID: 20 characters of base32hex, seconds first, then machine, process and counter.
        #[strum(serialize = "xid")]
        Xid,
        /// A Firebase push id: 20 characters, milliseconds in the first 8, then 72 random bits.
        #[strum(serialize = "firebase push id")]
        PushId,
        /// Text of no known family that begins with a Unix time in seconds (10 decimal digits).
        #[strum(serialize = "time-prefixed text (seconds)")]
        TimeTextSeconds,
        /// Text of no known family that begins with a Unix time in milliseconds (13 decimal digits).
        #[strum(serialize = "time-prefixed text (milliseconds)")]
        TimeTextMillis,
        /// A ULID's (or a timeflake's) 128 bits as hex text: milliseconds in the first 48 bits.
        #[strum(serialize = "ulid as hex text")]
        UlidHexText,
        /// ULIDs (or TypeIDs) after several prefixes in one column: each prefix an append point.
        #[strum(serialize = "ulid as text, per prefix")]
        UlidPerPrefix,
        /// 40 or 64 hex digits: a SHA-1's or a SHA-256's length, random.
        #[strum(serialize = "content hash")]
        ContentHash,
        #[strum(serialize = "random text")]
        RandomText,
        /// Integers the application supplies (no default), with no time in them.
        #[strum(serialize = "application-supplied integer")]
        Integer,
        #[strum(serialize = "expression")]
        Expression,
        #[strum(serialize = "composite")]
        Composite,
        #[strum(serialize = "application-supplied")]
        ApplicationSupplied,
    }
}

impl KeyKind {
    /// The label SQL gives it (its `name()`).
    pub fn label(self) -> &'static str {
        self.name()
    }

    /// The kind labelled `label` by sql/audit_values.sql; a uuid of another version as text (`uuid
    /// v1 as text`) is [`KeyKind::UuidOtherText`].
    pub fn from_label(label: &str) -> Option<KeyKind> {
        KeyKind::ALL
            .iter()
            .copied()
            .find(|k| k.label() == label)
            .or_else(|| {
                (label.starts_with("uuid ") && label.ends_with(" as text"))
                    .then_some(KeyKind::UuidOtherText)
            })
    }

    /// Keys whose new values land anywhere in the index rather than at its right edge (by what
    /// the kind is; the audit measures what the values do besides).
    pub fn is_random(self) -> bool {
        match self {
            KeyKind::UuidV4
            | KeyKind::UuidV4Text
            | KeyKind::UuidV1
            | KeyKind::UuidOther
            | KeyKind::UuidOtherText
            | KeyKind::ContentHash
            | KeyKind::RandomText => true,
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV7
            | KeyKind::UuidV6
            | KeyKind::UuidV8
            | KeyKind::UuidV7Text
            | KeyKind::UlidUuid
            | KeyKind::UlidText
            | KeyKind::Snowflake
            | KeyKind::SnowflakeLike
            | KeyKind::Ksuid
            | KeyKind::ObjectIdText
            | KeyKind::Cuid
            | KeyKind::Xid
            | KeyKind::PushId
            | KeyKind::TimeTextSeconds
            | KeyKind::TimeTextMillis
            | KeyKind::UlidHexText
            | KeyKind::UlidPerPrefix
            | KeyKind::Integer
            | KeyKind::Expression
            | KeyKind::Composite
            | KeyKind::ApplicationSupplied => false,
        }
    }

    /// The unit of the time a time-prefixed kind's keys begin with, where it is coarse enough
    /// that keys sharing it land at random among themselves (their tail is random): what makes a
    /// low leaf density of an ordered-looking key.
    pub fn coarse_unit(self) -> Option<&'static str> {
        match self {
            KeyKind::Ksuid | KeyKind::ObjectIdText | KeyKind::Xid | KeyKind::TimeTextSeconds => {
                Some("second")
            }
            KeyKind::UlidText
            | KeyKind::UlidUuid
            | KeyKind::UlidHexText
            | KeyKind::Cuid
            | KeyKind::PushId
            | KeyKind::TimeTextMillis => Some("millisecond"),
            _ => None,
        }
    }

    /// A uuid stored as text (36 characters, or 32 hex digits), or a ULID's or timeflake's 128
    /// bits as 32 hex digits (`id::uuid` reads them, in the same order).
    pub fn is_uuid_text(self) -> bool {
        matches!(
            self,
            KeyKind::UuidV4Text
                | KeyKind::UuidV7Text
                | KeyKind::UuidOtherText
                | KeyKind::UlidHexText
        )
    }

    /// The time in a key of this kind stored as `type_name`, as SQL over the key `k` with
    /// keybench's schema `ext`, and the function giving the smallest key of a millisecond: the
    /// kinds whose keys carry their time, in the type keybench's functions read (a Snowflake in a
    /// numeric or text column is read by none of them).
    pub fn key_time(self, ext: &str, type_name: &str) -> Option<(String, String)> {
        // (the type keybench's functions read it from, where the time is, the floor function)
        let (native, time, floor) = match self {
            KeyKind::UuidV7 => (type_name == "uuid", KeyTime::Uuidv7, "uuidv7_floor"),
            KeyKind::UlidUuid => (type_name == "uuid", KeyTime::UlidUuid, "ulid_uuid_floor"),
            KeyKind::UlidText => (is_text_type(type_name), KeyTime::Ulid, "ulid_floor"),
            KeyKind::Snowflake => (type_name == "bigint", KeyTime::Snowflake, "snowflake_floor"),
            KeyKind::Identity
            | KeyKind::Sequence
            | KeyKind::UuidV4
            | KeyKind::UuidV1
            | KeyKind::UuidV6
            | KeyKind::UuidV8
            | KeyKind::UuidOther
            | KeyKind::UuidV4Text
            | KeyKind::UuidV7Text
            | KeyKind::UuidOtherText
            | KeyKind::SnowflakeLike
            | KeyKind::Ksuid
            | KeyKind::ObjectIdText
            | KeyKind::Cuid
            | KeyKind::Xid
            | KeyKind::PushId
            | KeyKind::TimeTextSeconds
            | KeyKind::TimeTextMillis
            | KeyKind::UlidHexText
            | KeyKind::UlidPerPrefix
            | KeyKind::ContentHash
            | KeyKind::RandomText
            | KeyKind::Integer
            | KeyKind::Expression
            | KeyKind::Composite
            | KeyKind::ApplicationSupplied => return None,
        };
        native.then(|| (time.sql(ext, "k"), format!("{ext}.{floor}")))
    }
}

pub fn is_text_type(t: &str) -> bool {
    t == "text" || t.starts_with("character") || t == "name"
}
