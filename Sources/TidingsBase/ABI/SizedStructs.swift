import TidingsABI

// The size each struct of tidings.h had in the version that introduced it,
// and the defaults its fields take beyond the size given ("Sizes per
// version" in the header): NULL, 0 and false unless the header says otherwise.

extension tidings_user_info_entry: SizedStruct {
    package static let introducedSize = size(through: \.string_value)
}

extension tidings_attachment: SizedStruct {
    package static let introducedSize = size(through: \.url)
    /// Version 2's fields: size 0, the thumbnail shown whole, at the default moment (-1).
    package static var defaults: Self {
        var attachment = Self()
        attachment.thumbnail_time = -1
        return attachment
    }
}

extension tidings_content: SizedStruct {
    package static let introducedSize = size(through: \.attachments)
    package static var defaults: Self {
        var content = Self()
        content.badge = Int64(TIDINGS_BADGE_NONE)
        content.interruption_level = TIDINGS_INTERRUPTION_ACTIVE
        return content
    }
}

extension tidings_notification: SizedStruct {
    package static let introducedSize = size(through: \.content)
}

extension tidings_response: SizedStruct {
    package static let introducedSize = size(through: \.notification)
}

extension tidings_action: SizedStruct {
    package static let introducedSize = size(through: \.text_input_placeholder)
}

extension tidings_attachment_request: SizedStruct {
    package static let introducedSize = size(through: \.thumbnail_time)
    package static var defaults: Self {
        var request = Self()
        request.thumbnail_time = -1
        return request
    }
}

extension tidings_attachment_result: SizedStruct {
    package static let introducedSize = size(through: \.size)
}

extension tidings_media_button: SizedStruct {
    package static let introducedSize = size(through: \.tint_color)
}

extension tidings_host: SizedStruct {
    /// Version 1's table, through complete_response; later functions are NULL beyond it.
    package static let introducedSize = size(through: \.complete_response)
}

extension tidings_extension: SizedStruct {
    /// `TIDINGS_EXTENSION_MIN_SIZE`: through did_receive_notification, the
    /// least a descriptor may be; the functions beyond are "not implemented".
    package static let introducedSize = size(through: \.did_receive_notification)
}

extension tidings_entry_info: SizedStruct {
    package static let introducedSize = size(through: \.bundle_path)
}

extension tidings_limits_interface: SizedStruct {
    package static let introducedSize = size(through: \.call_burst)
}

extension tidings_content_interface: SizedStruct {
    package static let introducedSize = size(through: \.get_details)
}

extension tidings_content_details: SizedStruct {
    package static let introducedSize = size(through: \.filter_criteria)
    /// A sound volume beyond the size given is the system's (negative).
    package static var defaults: Self { Self(struct_size: 0, critical_sound: false, sound_volume: -1, launch_image_name: nil,
                                             summary_argument: nil, summary_argument_count: 0, filter_criteria: nil) }
}

extension tidings_trigger_interface: SizedStruct {
    package static let introducedSize = size(through: \.get_trigger)
}

extension tidings_trigger: SizedStruct {
    package static let introducedSize = size(through: \.notify_on_exit)
}

extension tidings_elements_interface: SizedStruct {
    package static let introducedSize = size(through: \.set_enabled)
}

extension tidings_text_input_interface: SizedStruct {
    package static let introducedSize = size(through: \.end_text_input)
}

extension tidings_element_event: SizedStruct {
    package static let introducedSize = size(through: \.text)
}

extension tidings_element_events_interface: SizedStruct {
    package static let introducedSize = size(through: \.handle_event)
}
